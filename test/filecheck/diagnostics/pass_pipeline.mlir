// RUN: not ts-opt %s --pass-pipeline='builtin.module(cse,func.func(inlin))' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not ts-opt %s --pass-pipeline='builtin.module(cse,fuse-pointwise{min_ops=2)' 2>&1 | filecheck %s --check-prefix=OPTIONS
// Pipeline mistakes point into the pipeline as the user spelled it, anchors included.

// NAME:      pass-pipeline:1:30: error: unknown pass 'inlin'; did you mean 'inline'? (ts-opt --list-passes lists them)
// NAME-NEXT: {{^}}builtin.module(cse,func.func(inlin)){{$}}
// NAME-NEXT: {{^                             \^$}}

// OPTIONS:      pass-pipeline:1:44: error: malformed pass arguments, expected either a space or `}` here
// OPTIONS-NEXT: {{^}}builtin.module(cse,fuse-pointwise{min_ops=2){{$}}
// OPTIONS-NEXT: {{^                                           \^$}}
func.func @f() {
  func.return
}
