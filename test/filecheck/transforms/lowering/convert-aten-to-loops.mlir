// RUN: ts-opt %s -p convert-aten-to-loops | filecheck %s
// RUN: ts-opt %s -p convert-aten-to-loops{variant=contiguous} | filecheck %s --check-prefix=CONTIGUOUS
// RUN: ts-opt %s -p convert-aten-to-loops{variant=staged} | filecheck %s --check-prefix=STAGED
// RUN: not ts-opt %s -p convert-aten-to-loops{variant=flat} 2>&1 | filecheck %s --check-prefix=FLAT

!F = !ts.tensor<f32, [?, ?]>
!V = !ts.tensor<f32, [?]>

// A group reading a tensor, a scalar input and constants, writing one result.
func.func @gelu(%x: !V, %s: !ts.float) -> !V {
  %r = prim.FusionGroup(%p = %x : !V, %q = %s : !ts.float) -> (!V) {
    %half = prim.Constant 0.5 : !ts.float
    %three = prim.Constant 3 : !ts.int
    %one = prim.Constant 1 : !ts.int
    %cube = aten.pow %p, %three : (!V, !ts.int) -> !V
    %a = aten.mul %cube, %q : (!V, !ts.float) -> !V
    %b = aten.add %p, %a, %one : (!V, !V, !ts.int) -> !V
    %t = aten.tanh %b : (!V) -> !V
    %c = aten.mul %t, %half : (!V, !ts.float) -> !V
    prim.Yield %c : !V
  }
  func.return %r : !V
}

// The flat loop over whole vectors, then the last partial vector with its lanes
// past the end masked off (`scf.if`).
// CHECK-LABEL: func.func @gelu.fusion0(%n0: index, %p: memref<?xf32, strided<[?]>> {llvm.noalias}, %q: f64, %out0: memref<?xf32, strided<[?]>> {llvm.noalias}) {
// CHECK-NEXT:   %0 = arith.constant -8 : index
// CHECK-NEXT:   %1 = arith.andi %n0, %0 : index
// CHECK-NEXT:   %2 = arith.constant 7 : index
// CHECK-NEXT:   %3 = arith.addi %n0, %2 : index
// CHECK-NEXT:   %4 = arith.andi %3, %0 : index
// CHECK-NEXT:   %5 = arith.constant 0 : index
// CHECK-NEXT:   %6 = arith.constant 1 : index
// CHECK-NEXT:   scf.for %i0 = %5 to %1 step %6 {
// CHECK-NEXT:     %7 = memref.load %p[%i0] : memref<?xf32, strided<[?]>>
// CHECK-NEXT:     %8 = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:     %9 = arith.mulf %7, %7 fastmath<contract> : f32
// CHECK-NEXT:     %10 = arith.mulf %7, %9 fastmath<contract> : f32
// CHECK-NEXT:     %11 = arith.truncf %q : f64 to f32
// CHECK-NEXT:     %12 = arith.mulf %10, %11 fastmath<contract> : f32
// CHECK-NEXT:     %13 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     %14 = arith.addf %7, %12 fastmath<contract> : f32
// CHECK-NEXT:     %15 = math.tanh %14 : f32
// CHECK-NEXT:     %16 = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:     %17 = arith.mulf %15, %16 fastmath<contract> : f32
// CHECK-NEXT:     memref.store %17, %out0[%i0] : memref<?xf32, strided<[?]>>
// CHECK-NEXT:   } {tsjit.interleave = 4 : i64}
// CHECK-NEXT:   scf.for %i0_1 = %1 to %4 step %6 {
// CHECK-NEXT:     %18 = arith.cmpi slt, %i0_1, %n0 : index
// CHECK-NEXT:     scf.if %18 {
// CHECK-NEXT:       %19 = memref.load %p[%i0_1] : memref<?xf32, strided<[?]>>
// CHECK-NEXT:       %20 = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:       %21 = arith.mulf %19, %19 fastmath<contract> : f32
// CHECK-NEXT:       %22 = arith.mulf %19, %21 fastmath<contract> : f32
// CHECK-NEXT:       %23 = arith.truncf %q : f64 to f32
// CHECK-NEXT:       %24 = arith.mulf %22, %23 fastmath<contract> : f32
// CHECK-NEXT:       %25 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:       %26 = arith.addf %19, %24 fastmath<contract> : f32
// CHECK-NEXT:       %27 = math.tanh %26 : f32
// CHECK-NEXT:       %28 = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:       %29 = arith.mulf %27, %28 fastmath<contract> : f32
// CHECK-NEXT:       memref.store %29, %out0[%i0_1] : memref<?xf32, strided<[?]>>
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
// CHECK-NEXT: }

// Two results of different dtypes, operands of different ranks (a broadcast row).
func.func @broadcast(%x: !F, %row: !V) -> !ts.tuple<!F, !ts.tensor<i1, [?, ?]>> {
  %r, %m = prim.FusionGroup(%p = %x : !F, %q = %row : !V) -> (!F, !ts.tensor<i1, [?, ?]>) {
    %two = prim.Constant 2 : !ts.int
    %a = aten.sub %p, %q, %two : (!F, !V, !ts.int) -> !F
    %b = aten.gt %a, %q : (!F, !V) -> !ts.tensor<i1, [?, ?]>
    prim.Yield %a, %b : !F, !ts.tensor<i1, [?, ?]>
  }
  %t = prim.TupleConstruct %r, %m : (!F, !ts.tensor<i1, [?, ?]>) -> !ts.tuple<!F, !ts.tensor<i1, [?, ?]>>
  func.return %t : !ts.tuple<!F, !ts.tensor<i1, [?, ?]>>
}

// CONTIGUOUS-LABEL: func.func @broadcast.fusion0(%n0: index, %n1: index, %p: memref<?x?xf32, strided<[?, 1]>> {llvm.noalias}, %q: memref<?x?xf32, strided<[?, 1]>> {llvm.noalias}, %out0: memref<?x?xf32, strided<[?, 1]>> {llvm.noalias}, %out1: memref<?x?xi1, strided<[?, 1]>> {llvm.noalias}) {
// CHECK-LABEL: func.func @broadcast.fusion0(%n0: index, %n1: index, %p: memref<?x?xf32, strided<[?, ?]>> {llvm.noalias}, %q: memref<?x?xf32, strided<[?, ?]>> {llvm.noalias}, %out0: memref<?x?xf32, strided<[?, ?]>> {llvm.noalias}, %out1: memref<?x?xi1, strided<[?, ?]>> {llvm.noalias}) {
// CHECK:         scf.for %i0 = %{{.*}} to %n0 step %{{.*}} {
// CHECK:           scf.for %i1 = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[P:.*]] = memref.load %p[%i0, %i1] : memref<?x?xf32, strided<[?, ?]>>
// CHECK-NEXT:        %[[Q:.*]] = memref.load %q[%i0, %i1] : memref<?x?xf32, strided<[?, ?]>>
// CHECK-NEXT:        %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:        %[[TWOQ:.*]] = arith.mulf %[[TWO]], %[[Q]] fastmath<contract> : f32
// CHECK-NEXT:        %[[A:.*]] = arith.subf %[[P]], %[[TWOQ]] fastmath<contract> : f32
// CHECK-NEXT:        %[[B:.*]] = arith.cmpf ogt, %[[A]], %[[Q]] : f32
// CHECK-NEXT:        memref.store %[[A]], %out0[%i0, %i1] : memref<?x?xf32, strided<[?, ?]>>
// CHECK-NEXT:        memref.store %[[B]], %out1[%i0, %i1] : memref<?x?xi1, strided<[?, ?]>>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for %i1_1 = %{{.*}} {
// CHECK-NEXT:        %{{.*}} = arith.cmpi slt, %i1_1, %n1 : index
// CHECK-NEXT:        scf.if

// Chunks read in place (at k·n1 along dim 1), a cat written in place.
func.func @chunk_cat(%x: !F, %y: !F) -> !F {
  %r = prim.FusionGroup(%p = %x : !F, %q = %y : !F) -> (!F) {
    %one = prim.Constant 1 : !ts.int
    %a, %b = prim.ConstantChunk[chunks = 2, dim = 1] %p : !F -> !F, !F
    %c = aten.mul %a, %q : (!F, !F) -> !F
    %d = aten.sigmoid %b : (!F) -> !F
    %l = prim.ListConstruct %c, %d : (!F, !F) -> !ts.list<!ts.tensor>
    %e = aten.cat %l, %one : (!ts.list<!ts.tensor>, !ts.int) -> !F
    prim.Yield %e : !F
  }
  func.return %r : !F
}

// CONTIGUOUS-LABEL: func.func @chunk_cat.fusion0
// CONTIGUOUS:          %[[UP:.*]] = arith.addi %i1, %n1 : index
// CONTIGUOUS-NEXT:     %{{.*}} = memref.load %p[%i0, %[[UP]]] : memref<?x?xf32, strided<[?, 1]>>
// FLAT: convert-aten-to-loops.mlir:[[# @LINE - 15]]:3: error: fusion group: chunks need the contiguous or strided variant

// Staged: each row of %p (both chunks) is copied to a stack buffer made once, and the
// chunks are read from there.
// STAGED-LABEL: func.func @chunk_cat.fusion0
// STAGED-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// STAGED-NEXT:    %[[LEN:.*]] = arith.muli %n1, %[[TWO]] : index
// STAGED-NEXT:    %p.row = memref.alloca(%[[LEN]]) : memref<?xf32>
// STAGED:         scf.for %i0 =
// STAGED:           scf.for %j = %{{.*}} to %[[LEN]] step %{{.*}} {
// STAGED-NEXT:        %[[V:.*]] = memref.load %p[%i0, %j] : memref<?x?xf32, strided<[?, 1]>>
// STAGED-NEXT:        memref.store %[[V]], %p.row[%j] : memref<?xf32>
// STAGED-NEXT:      }
// Then the next row (the last one again at the end) is prefetched, a cache line at a time.
// STAGED-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// STAGED-NEXT:      %[[DOWN:.*]] = arith.addi %i0, %[[ONE]] : index
// STAGED-NEXT:      %[[LAST:.*]] = arith.subi %n0, %[[ONE]] : index
// STAGED-NEXT:      %[[NEXT:.*]] = arith.minsi %[[DOWN]], %[[LAST]] : index
// STAGED-NEXT:      %{{.*}} = arith.constant 0 : index
// STAGED-NEXT:      %[[LINE:.*]] = arith.constant 16 : index
// STAGED-NEXT:      scf.for %k = %{{.*}} to %[[LEN]] step %[[LINE]] {
// STAGED-NEXT:        memref.prefetch %p[%[[NEXT]], %k], read, locality<3>, data : memref<?x?xf32, strided<[?, 1]>>
// STAGED-NEXT:      }
// STAGED:           scf.for %i1 =
// STAGED-NEXT:        %{{.*}} = memref.load %p.row[%i1] : memref<?xf32>
// STAGED-NEXT:        %{{.*}} = memref.load %q[%i0, %i1] : memref<?x?xf32, strided<[?, 1]>>
// STAGED:             %[[UP:.*]] = arith.addi %i1, %n1 : index
// STAGED-NEXT:        %{{.*}} = memref.load %p.row[%[[UP]]] : memref<?xf32>
// CHECK-LABEL: func.func @chunk_cat.fusion0(%n0: index, %n1: index, %p: memref<?x?xf32, strided<[?, ?]>> {llvm.noalias}, %q: memref<?x?xf32, strided<[?, ?]>> {llvm.noalias}, %out0: memref<?x?xf32, strided<[?, ?]>> {llvm.noalias}) {
// CHECK:           scf.for %i1 = %{{.*}} {
// CHECK-NEXT:        %[[A:.*]] = memref.load %p[%i0, %i1] : memref<?x?xf32, strided<[?, ?]>>
// CHECK-NEXT:        %[[Y:.*]] = memref.load %q[%i0, %i1] : memref<?x?xf32, strided<[?, ?]>>
// CHECK-NEXT:        %[[AY:.*]] = arith.mulf %[[A]], %[[Y]] fastmath<contract> : f32
// CHECK-NEXT:        %[[UP:.*]] = arith.addi %i1, %n1 : index
// CHECK-NEXT:        %[[B:.*]] = memref.load %p[%i0, %[[UP]]] : memref<?x?xf32, strided<[?, ?]>>
// CHECK:             %[[SIG:.*]] = arith.divf
// CHECK-NEXT:        memref.store %[[AY]], %out0[%i0, %i1] : memref<?x?xf32, strided<[?, ?]>>
// CHECK-NEXT:        memref.store %[[SIG]], %out0[%i0, %[[UP]]] : memref<?x?xf32, strided<[?, ?]>>

// A function of numbers lowers whole: loops stop once a division by zero is flagged.
func.func @gcd(%a: !ts.int, %b: !ts.int) -> !ts.int {
  %max = prim.Constant 9223372036854775807 : !ts.int
  %zero = prim.Constant 0 : !ts.int
  %go = aten.ne %b, %zero : (!ts.int, !ts.int) -> !ts.bool
  %x, %y = prim.Loop %max, %go iter(%i) carried(%u = %a : !ts.int, %v = %b : !ts.int) -> (!ts.int, !ts.int) {
    %m = aten.remainder %u, %v : (!ts.int, !ts.int) -> !ts.int
    %more = aten.ne %m, %zero : (!ts.int, !ts.int) -> !ts.bool
    prim.Yield %more, %v, %m : !ts.bool, !ts.int, !ts.int
  }
  func.return %x : !ts.int
}

// CHECK-LABEL: func.func @gcd(%a: i64, %b: i64) -> (i1, i64) {
// CHECK-NEXT:   %raised = memref.alloca() : memref<i1>
// CHECK-NEXT:   %0 = arith.constant false
// CHECK-NEXT:   memref.store %0, %raised[] : memref<i1>
// CHECK-NEXT:   %1 = arith.constant 0 : i64
// CHECK-NEXT:   %2 = arith.cmpi ne, %b, %1 : i64
// CHECK-NEXT:   %3 = arith.constant 9223372036854775807 : i64
// CHECK-NEXT:   %4, %5, %x, %y = scf.while (%6 = %1, %7 = %2, %8 = %a, %9 = %b) : (i64, i1, i64, i64) -> (i64, i1, i64, i64) {
// CHECK-NEXT:     %10 = arith.cmpi slt, %6, %3 : i64
// CHECK-NEXT:     %11 = memref.load %raised[] : memref<i1>
// CHECK-NEXT:     %12 = arith.andi %10, %7 : i1
// CHECK-NEXT:     %13 = arith.constant true
// CHECK-NEXT:     %14 = arith.xori %11, %13 : i1
// CHECK-NEXT:     %15 = arith.andi %12, %14 : i1
// CHECK-NEXT:     scf.condition(%15) %6, %7, %8, %9 : i64, i1, i64, i64
// CHECK-NEXT:   } do {
// CHECK-NEXT:   ^bb0(%i: i64, %16: i1, %u: i64, %v: i64):
// CHECK-NEXT:     %17 = arith.constant 0 : i64
// CHECK-NEXT:     %18 = arith.cmpi eq, %v, %17 : i64
// CHECK-NEXT:     %19 = memref.load %raised[] : memref<i1>
// CHECK-NEXT:     %20 = arith.ori %19, %18 : i1
// CHECK-NEXT:     memref.store %20, %raised[] : memref<i1>
// CHECK-NEXT:     %21 = arith.constant 1 : i64
// CHECK-NEXT:     %22 = arith.select %18, %21, %v : i64
// CHECK-NEXT:     %23 = arith.remsi %u, %22 : i64
// CHECK-NEXT:     %24 = arith.cmpi ne, %23, %17 : i64
// CHECK-NEXT:     %25 = arith.xori %23, %v : i64
// CHECK-NEXT:     %26 = arith.cmpi slt, %25, %17 : i64
// CHECK-NEXT:     %27 = arith.andi %24, %26 : i1
// CHECK-NEXT:     %28 = arith.select %27, %v, %17 : i64
// CHECK-NEXT:     %29 = arith.addi %23, %28 : i64
// CHECK-NEXT:     %30 = arith.cmpi ne, %29, %17 : i64
// CHECK-NEXT:     %31 = arith.constant 1 : i64
// CHECK-NEXT:     %32 = arith.addi %i, %31 : i64
// CHECK-NEXT:     scf.yield %32, %30, %v, %29 : i64, i1, i64, i64
// CHECK-NEXT:   }
// CHECK-NEXT:   %33 = memref.load %raised[] : memref<i1>
// CHECK-NEXT:   func.return %33, %x : i1, i64
// CHECK-NEXT: }

// Branches, floats and a raise.
func.func @clipped_sqrt(%x: !ts.float, %limit: !ts.float) -> !ts.tuple<!ts.float, !ts.bool> {
  %zero = prim.Constant 0.0 : !ts.float
  %negative = aten.lt %x, %zero : (!ts.float, !ts.float) -> !ts.bool
  %r = prim.If %negative -> (!ts.float) {
    %msg = prim.Constant "negative" : !ts.str
    %cls = prim.Constant "builtins.ValueError" : !ts.str
    prim.RaiseException %msg, %cls : !ts.str
    %u = prim.Uninitialized : !ts.float
    prim.Yield %u : !ts.float
  } else {
    %s = aten.sqrt %x : (!ts.float) -> !ts.float
    prim.Yield %s : !ts.float
  }
  %big = aten.gt %r, %limit : (!ts.float, !ts.float) -> !ts.bool
  %t = prim.TupleConstruct %r, %big : (!ts.float, !ts.bool) -> !ts.tuple<!ts.float, !ts.bool>
  func.return %t : !ts.tuple<!ts.float, !ts.bool>
}

// CHECK-LABEL: func.func @clipped_sqrt(%x: f64, %limit: f64) -> (i1, f64, i1) {
// CHECK-NEXT:   %raised = memref.alloca() : memref<i1>
// CHECK-NEXT:   %0 = arith.constant false
// CHECK-NEXT:   memref.store %0, %raised[] : memref<i1>
// CHECK-NEXT:   %1 = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:   %2 = arith.cmpf olt, %x, %1 : f64
// CHECK-NEXT:   %r = scf.if %2 -> (f64) {
// CHECK-NEXT:     %3 = arith.constant true
// CHECK-NEXT:     %4 = memref.load %raised[] : memref<i1>
// CHECK-NEXT:     %5 = arith.ori %4, %3 : i1
// CHECK-NEXT:     memref.store %5, %raised[] : memref<i1>
// CHECK-NEXT:     %6 = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:     scf.yield %6 : f64
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %7 = math.sqrt %x : f64
// CHECK-NEXT:     scf.yield %7 : f64
// CHECK-NEXT:   }
// CHECK-NEXT:   %8 = arith.cmpf ogt, %r, %limit : f64
// CHECK-NEXT:   %9 = memref.load %raised[] : memref<i1>
// CHECK-NEXT:   func.return %9, %r, %8 : i1, f64, i1
// CHECK-NEXT: }

// Integers: fmax and fmin are plain integer max/min (there is no NaN to skip), and
// atan2 computes in its float result type.
!L = !ts.tensor<i64, [?]>
func.func @integral(%x: !L, %y: !L) -> !ts.tuple<!L, !V> {
  %r:2 = prim.FusionGroup(%p = %x : !L, %q = %y : !L) -> (!L, !V) {
    %m = aten.fmax %p, %q : (!L, !L) -> !L
    %a = aten.atan2 %m, %q : (!L, !L) -> !V
    prim.Yield %m, %a : !L, !V
  }
  %t = prim.TupleConstruct %r#0, %r#1 : (!L, !V) -> !ts.tuple<!L, !V>
  func.return %t : !ts.tuple<!L, !V>
}

// CHECK-LABEL: func.func @integral.fusion0(
// CHECK:         scf.for %i0 =
// CHECK-NEXT:      %7 = memref.load %p[%i0] : memref<?xi64, strided<[?]>>
// CHECK-NEXT:      %8 = memref.load %q[%i0] : memref<?xi64, strided<[?]>>
// CHECK-NEXT:      %9 = arith.maxsi %7, %8 : i64
// CHECK-NEXT:      %10 = arith.sitofp %9 : i64 to f32
// CHECK-NEXT:      %11 = arith.sitofp %8 : i64 to f32
// CHECK-NEXT:      %12 = math.atan2 %10, %11 : f32
// CHECK-NEXT:      memref.store %9, %out0[%i0] : memref<?xi64, strided<[?]>>
// CHECK-NEXT:      memref.store %12, %out1[%i0] : memref<?xf32, strided<[?]>>

// A graph with no native code leaves nothing behind.
func.func @interpreted(%x: !F, %y: !F) -> !F {
  %r = aten.mm %x, %y : (!F, !F) -> !F
  func.return %r : !F
}
// CHECK-NOT: func.func
