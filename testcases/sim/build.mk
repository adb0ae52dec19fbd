# testcases/sim: rules added by its owner
