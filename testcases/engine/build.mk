# testcases/engine: rules added by its owner
