# plugin: rules added by its owner
