// RUN: ts-opt %s --split-input-file -p loop-unrolling | filecheck %s
// RUN: ts-opt %s --split-input-file -p 'loop-unrolling{constant-only=true}' | filecheck %s --check-prefix=CONST

// `for i in range(10)`: a constant trip count unrolls fully, the counter a constant
// in each copy.
// CHECK-LABEL: func.func @range_10
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %n = prim.Constant 10 : !ts.int
// CHECK-NEXT:    %[[I0:.*]] = prim.Constant 0 : !ts.int
// CHECK-NEXT:    %[[S0:.*]] = aten.add %x, %[[I0]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    %[[I1:.*]] = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %[[S1:.*]] = aten.add %[[S0]], %[[I1]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-COUNT-7: aten.add
// CHECK-NOT:     prim.Loop
// CHECK:         %[[I9:.*]] = prim.Constant 9 : !ts.int
// CHECK-NEXT:    %[[S9:.*]] = aten.add %{{.*}}, %[[I9]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    func.return %[[S9]] : !ts.int

// CONST-LABEL: func.func @range_10
// CONST-NOT:     prim.Loop
// CONST:         func.return
func.func @range_10(%x : !ts.int) -> !ts.int {
  %true = prim.Constant true : !ts.bool
  %n = prim.Constant 10 : !ts.int
  %r = prim.Loop %n, %true iter(%i) carried(%s = %x : !ts.int) -> (!ts.int) {
    %t = aten.add %s, %i : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %t : !ts.bool, !ts.int
  }
  func.return %r : !ts.int
}

// -----

// A dynamic trip count unrolls by 8: eight copies per trip of a loop running
// n // 8 (rounded to zero) trips, the counter recomputed as 8 * j + k, then the
// original loop as the epilogue for the rest, its counter offset by 8 * (n // 8).
// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %[[EIGHT:.*]] = prim.Constant 8 : !ts.int
// CHECK-NEXT:    %[[TRIPS:.*]] = aten.__round_to_zero_floordiv %n, %[[EIGHT]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    %[[DONE:.*]] = aten.mul %[[TRIPS]], %[[EIGHT]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    %[[REST:.*]] = aten.sub %n, %[[DONE]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    %[[MAIN:.*]] = prim.Loop %[[TRIPS]], %true iter(%[[J:.*]]) carried(%[[S:.*]] = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %[[BASE:.*]] = aten.mul %[[J]], %[[EIGHT]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:      %[[T0:.*]] = aten.add %[[S]], %[[BASE]], %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:      %[[K1:.*]] = prim.Constant 1 : !ts.int
// CHECK-NEXT:      %[[I1:.*]] = aten.add %[[BASE]], %[[K1]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:      %[[T1:.*]] = aten.add %[[T0]], %[[I1]], %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-COUNT-6: aten.add %{{.*}}, %{{.*}}, %one
// CHECK-NEXT:      prim.Yield %true, %{{.*}} : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %r = prim.Loop %[[REST]], %true iter(%[[E:.*]]) carried(%[[ES:.*]] = %[[MAIN]] : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %[[I:.*]] = aten.add %[[E]], %[[DONE]] : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:      %[[T:.*]] = aten.add %[[ES]], %[[I]], %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %true, %[[T]] : !ts.bool, !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !ts.tensor

// CONST-LABEL: func.func @dynamic
// CONST-NEXT:    %true = prim.Constant true : !ts.bool
// CONST-NEXT:    %r = prim.Loop %n, %true
func.func @dynamic(%x : !ts.tensor, %n : !ts.int, %one : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %r = prim.Loop %n, %true iter(%i) carried(%s = %x : !ts.tensor) -> (!ts.tensor) {
    %t = aten.add %s, %i, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.Yield %true, %t : !ts.bool, !ts.tensor
  }
  func.return %r : !ts.tensor
}

// -----

// Without uses of the counter, the copies need no index arithmetic.
// CHECK-LABEL: func.func @counter_unused
// CHECK:         prim.Loop %{{.*}}, %true iter(%{{.*}}) carried(%{{.*}} = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    prim.Loop
// CHECK-NEXT:      aten.mul
// CHECK-NEXT:      prim.Yield
func.func @counter_unused(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %r = prim.Loop %n, %true iter(%i) carried(%s = %x : !ts.tensor) -> (!ts.tensor) {
    %t = aten.mul %s, %s : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %true, %t : !ts.bool, !ts.tensor
  }
  func.return %r : !ts.tensor
}

// -----

// A `while` loop (its condition changes) and a loop that may not start stay.
// CHECK-LABEL: func.func @not_for_loops
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %n = prim.Constant 4 : !ts.int
// CHECK-NEXT:    %w = prim.Loop %n, %true
// CHECK:         %v = prim.Loop %n, %c
// CHECK:         func.return
func.func @not_for_loops(%x : !ts.int, %c : !ts.bool) -> (!ts.int, !ts.int) {
  %true = prim.Constant true : !ts.bool
  %n = prim.Constant 4 : !ts.int
  %w = prim.Loop %n, %true iter(%i) carried(%s = %x : !ts.int) -> (!ts.int) {
    %t = aten.add %s, %i : (!ts.int, !ts.int) -> !ts.int
    %go = aten.lt %t, %n : (!ts.int, !ts.int) -> !ts.bool
    prim.Yield %go, %t : !ts.bool, !ts.int
  }
  %v = prim.Loop %n, %c iter(%j) carried(%u = %x : !ts.int) -> (!ts.int) {
    %t = aten.add %u, %j : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %t : !ts.bool, !ts.int
  }
  func.return %w, %v : !ts.int, !ts.int
}

// -----

// A zero or negative constant trip count leaves the carried values as they were.
// CHECK-LABEL: func.func @zero_trips
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %n = prim.Constant -2 : !ts.int
// CHECK-NEXT:    func.return %x : !ts.int
func.func @zero_trips(%x : !ts.int) -> !ts.int {
  %true = prim.Constant true : !ts.bool
  %n = prim.Constant -2 : !ts.int
  %r = prim.Loop %n, %true iter(%i) carried(%s = %x : !ts.int) -> (!ts.int) {
    %t = aten.add %s, %i : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %t : !ts.bool, !ts.int
  }
  func.return %r : !ts.int
}

// -----

// Inner loops unroll first; the outer loop's body is then too large (8 copies of the
// inner body plus its epilogue are fine, but 33 ops are not) and stays a loop, unless
// only constant trip counts are asked for, whatever the size.
// CHECK-LABEL: func.func @nested
// CHECK:         %r = prim.Loop %m, %true
// CHECK-COUNT-2:   prim.Loop
// CHECK:         func.return %r

// CONST-LABEL: func.func @nested
// CONST-NOT:     prim.Loop %m
// CONST:         func.return
func.func @nested(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %m = prim.Constant 2 : !ts.int
  %r = prim.Loop %m, %true iter(%i) carried(%s = %x : !ts.tensor) -> (!ts.tensor) {
    %inner = prim.Loop %n, %true iter(%j) carried(%u = %s : !ts.tensor) -> (!ts.tensor) {
      %a = aten.mul %u, %u : (!ts.tensor, !ts.tensor) -> !ts.tensor
      %b = aten.neg %a : (!ts.tensor) -> !ts.tensor
      %c = aten.relu %b : (!ts.tensor) -> !ts.tensor
      %d = aten.exp %c : (!ts.tensor) -> !ts.tensor
      prim.Yield %true, %d : !ts.bool, !ts.tensor
    }
    prim.Yield %true, %inner : !ts.bool, !ts.tensor
  }
  func.return %r : !ts.tensor
}

// -----

// A body over the size limit stays a loop, even with a small constant trip count.
// CHECK-LABEL: func.func @large_body
// CHECK:         prim.Loop
func.func @large_body(%x : !ts.tensor) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %n = prim.Constant 2 : !ts.int
  %r = prim.Loop %n, %true iter(%i) carried(%s = %x : !ts.tensor) -> (!ts.tensor) {
    %a1 = aten.neg %s : (!ts.tensor) -> !ts.tensor
    %a2 = aten.neg %a1 : (!ts.tensor) -> !ts.tensor
    %a3 = aten.neg %a2 : (!ts.tensor) -> !ts.tensor
    %a4 = aten.neg %a3 : (!ts.tensor) -> !ts.tensor
    %a5 = aten.neg %a4 : (!ts.tensor) -> !ts.tensor
    %a6 = aten.neg %a5 : (!ts.tensor) -> !ts.tensor
    %a7 = aten.neg %a6 : (!ts.tensor) -> !ts.tensor
    %a8 = aten.neg %a7 : (!ts.tensor) -> !ts.tensor
    %a9 = aten.neg %a8 : (!ts.tensor) -> !ts.tensor
    %a10 = aten.neg %a9 : (!ts.tensor) -> !ts.tensor
    %a11 = aten.neg %a10 : (!ts.tensor) -> !ts.tensor
    %a12 = aten.neg %a11 : (!ts.tensor) -> !ts.tensor
    %a13 = aten.neg %a12 : (!ts.tensor) -> !ts.tensor
    %a14 = aten.neg %a13 : (!ts.tensor) -> !ts.tensor
    %a15 = aten.neg %a14 : (!ts.tensor) -> !ts.tensor
    %a16 = aten.neg %a15 : (!ts.tensor) -> !ts.tensor
    %a17 = aten.neg %a16 : (!ts.tensor) -> !ts.tensor
    %a18 = aten.neg %a17 : (!ts.tensor) -> !ts.tensor
    %a19 = aten.neg %a18 : (!ts.tensor) -> !ts.tensor
    %a20 = aten.neg %a19 : (!ts.tensor) -> !ts.tensor
    %a21 = aten.neg %a20 : (!ts.tensor) -> !ts.tensor
    %a22 = aten.neg %a21 : (!ts.tensor) -> !ts.tensor
    %a23 = aten.neg %a22 : (!ts.tensor) -> !ts.tensor
    %a24 = aten.neg %a23 : (!ts.tensor) -> !ts.tensor
    %a25 = aten.neg %a24 : (!ts.tensor) -> !ts.tensor
    %a26 = aten.neg %a25 : (!ts.tensor) -> !ts.tensor
    %a27 = aten.neg %a26 : (!ts.tensor) -> !ts.tensor
    %a28 = aten.neg %a27 : (!ts.tensor) -> !ts.tensor
    %a29 = aten.neg %a28 : (!ts.tensor) -> !ts.tensor
    %a30 = aten.neg %a29 : (!ts.tensor) -> !ts.tensor
    %a31 = aten.neg %a30 : (!ts.tensor) -> !ts.tensor
    %a32 = aten.neg %a31 : (!ts.tensor) -> !ts.tensor
    %a33 = aten.neg %a32 : (!ts.tensor) -> !ts.tensor
    prim.Yield %true, %a33 : !ts.bool, !ts.tensor
  }
  func.return %r : !ts.tensor
}
