from cudainspect import main

main()
