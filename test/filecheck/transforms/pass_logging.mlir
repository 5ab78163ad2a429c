// RUN: env TSJIT_LOG_LEVEL=dead_code_elimination ts-opt %s -p dead-code-elimination 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: env TSJIT_LOG_LEVEL='>dead-code-elimination' ts-opt %s -p dead-code-elimination 2>&1 >/dev/null | filecheck %s --check-prefix=UPDATE
// RUN: env PYTORCH_JIT_LOG_LEVEL='>>common_subexpression_elimination.cpp' ts-opt %s -p common-subexpression-elimination 2>&1 >/dev/null | filecheck %s --check-prefix=DEBUG
// RUN: env TSJIT_LOG_LEVEL=peephole ts-opt %s -p dead-code-elimination 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty
// RUN: env TSJIT_OPT_LIMIT=dead-code-elimination=1 ts-opt %s -p dead-code-elimination | filecheck %s --check-prefix=LIMIT
// RUN: env PYTORCH_JIT_OPT_LIMIT=dead_code_elimination=0 ts-opt %s -p dead-code-elimination | filecheck %s --check-prefix=NONE
// RUN: env TSJIT_LOG_LEVEL=dead_code_elimination:common_subexpression_elimination:canonicalize ts-opt %s -p torchscript-cleanup 2>&1 >/dev/null | filecheck %s --check-prefix=PIPELINE
// RUN: not env TSJIT_OPT_LIMIT=peephole ts-opt %s -p peephole 2>&1 | filecheck %s --check-prefix=BAD

// PyTorch's logging grammar: a name dumps the module after that pass, `>` adds a line
// per rewrite, `>>` debug messages; names are module stems or pass names, extensions
// are ignored; PYTORCH_JIT_* works when TSJIT_* is unset. Limits cap the rewrites.

func.func @f(%x : !ts.tensor, %y : !ts.tensor) -> !ts.tensor {
  %a = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor loc("m.py":3:8)
  %b = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor loc("m.py":4:8)
  %one = prim.Constant 1 : !ts.int
  %w = aten.add_ %x, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor loc("m.py":5:4)
  %c = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor loc("m.py":6:8)
  %d = aten.sub %a, %b, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %dead1 = aten.exp %x : (!ts.tensor) -> !ts.tensor loc("m.py":7:8)
  %dead2 = aten.neg %x : (!ts.tensor) -> !ts.tensor loc("m.py":8:8)
  %e = aten.add %c, %d, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %e : !ts.tensor
}

// DUMP:      [DUMP dead_code_elimination] After dead-code-elimination:
// DUMP-NEXT: [DUMP dead_code_elimination] builtin.module {
// DUMP-NEXT: [DUMP dead_code_elimination]   func.func @f(%x: !ts.tensor, %y: !ts.tensor) -> !ts.tensor {
// DUMP-NOT:  aten.exp
// DUMP:      [DUMP dead_code_elimination] }

// UPDATE:      [UPDATE dead_code_elimination] aten.neg at m.py:8:8: removed
// UPDATE-NEXT: [UPDATE dead_code_elimination] aten.exp at m.py:7:8: removed
// UPDATE-NEXT: [DUMP dead_code_elimination] After dead-code-elimination:

// DEBUG:      [DEBUG common_subexpression_elimination] alias analysis of @f:
// DEBUG:      [DEBUG common_subexpression_elimination]   aten.add_ %w: {*!ts.tensor}
// DEBUG:      [UPDATE common_subexpression_elimination] aten.mul at m.py:4:8: replaced by the equal op at m.py:3:8
// DEBUG-NEXT: [DEBUG common_subexpression_elimination] aten.mul at m.py:6:8: kept: memory it reads was written since the equal op at m.py:3:8
// DEBUG:      [DUMP common_subexpression_elimination] After common-subexpression-elimination:

// QUIET-NOT: {{.}}

// LIMIT-LABEL: func.func @f
// LIMIT:         %dead1 = aten.exp %x
// LIMIT-NOT:     aten.neg

// NONE-LABEL: func.func @f
// NONE:         %dead1 = aten.exp %x
// NONE-NEXT:    %dead2 = aten.neg %x

// PIPELINE:     [DUMP dead_code_elimination] After dead-code-elimination:
// PIPELINE:     [DUMP dead_code_elimination] After dead-code-elimination:
// PIPELINE:     [DUMP common_subexpression_elimination] After common-subexpression-elimination:
// PIPELINE:     [DUMP dead_code_elimination] After dead-code-elimination:
// PIPELINE-NOT: After

// BAD: TSJIT_OPT_LIMIT: error: entry 'peephole' is not of the form pass=N
