// RUN: not ts-opt %S/Inputs/no_such_file.mlir 2>&1 | filecheck %s --check-prefix=OPT
// RUN: not ts-run %S/Inputs/no_such_file.txt 2>&1 | filecheck %s --check-prefix=RUNNING
// A file that is not there: the tool, the file and the reason, without `[Errno 2]`.
// OPT:      ts-opt: error: cannot read '{{.*}}no_such_file.mlir': no such file or directory
// OPT-NOT:  Errno
// RUNNING:    ts-run: error: cannot read '{{.*}}no_such_file.txt': no such file or directory
// RUNNING-NOT: Errno
