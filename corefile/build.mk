# corefile: rules added by its owner
