# recorder: rules added by its owner
