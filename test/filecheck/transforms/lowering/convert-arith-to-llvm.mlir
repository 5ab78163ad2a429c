// RUN: ts-opt %s -p convert-arith-to-llvm | filecheck %s

func.func @constants() -> (index, i1, f32, i32) {
  %i = arith.constant 7 : index
  %b = arith.constant true
  %f = arith.constant 1.5 : f32
  %n = arith.constant -3 : i32
  func.return %i, %b, %f, %n : index, i1, f32, i32
}
// CHECK-LABEL: func.func @constants() -> (index, i1, f32, i32) {
// CHECK-NEXT:   %i = llvm.mlir.constant(7) : i64
// CHECK-NEXT:   %i_1 = builtin.unrealized_conversion_cast %i : i64 to index
// CHECK-NEXT:   %b = llvm.mlir.constant(true) : i1
// CHECK-NEXT:   %f = llvm.mlir.constant(1.500000e+00 : f32) : f32
// CHECK-NEXT:   %n = llvm.mlir.constant(-3 : i32) : i32
// CHECK-NEXT:   func.return %i_1, %b, %f, %n : index, i1, f32, i32
// CHECK-NEXT: }

func.func @binary(%a: i64, %b: i64, %x: f32, %y: f32) -> (i64, i64, i64, f32, f32) {
  %add = arith.addi %a, %b overflow<nsw> : i64
  %div = arith.divsi %add, %b : i64
  %shr = arith.shrui %div, %a : i64
  %mul = arith.mulf %x, %y fastmath<fast> : f32
  %max = arith.maxnumf %mul, %y : f32
  func.return %add, %div, %shr, %mul, %max : i64, i64, i64, f32, f32
}
// CHECK-LABEL: func.func @binary(%a: i64, %b: i64, %x: f32, %y: f32) -> (i64, i64, i64, f32, f32) {
// CHECK-NEXT:   %add = llvm.add %a, %b overflow<nsw> : i64
// CHECK-NEXT:   %div = llvm.sdiv %add, %b : i64
// CHECK-NEXT:   %shr = llvm.lshr %div, %a : i64
// CHECK-NEXT:   %mul = llvm.fmul %x, %y {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:   %max = llvm.intr.maxnum(%mul, %y) : (f32, f32) -> f32
// CHECK-NEXT:   func.return %add, %div, %shr, %mul, %max : i64, i64, i64, f32, f32
// CHECK-NEXT: }

func.func @intrinsics(%a: i32, %b: i32, %x: f64, %y: f64) -> (i32, i32, f64, f64) {
  %0 = arith.maxsi %a, %b : i32
  %1 = arith.minui %a, %b : i32
  %2 = arith.maximumf %x, %y : f64
  %3 = arith.minimumf %x, %y : f64
  func.return %0, %1, %2, %3 : i32, i32, f64, f64
}
// CHECK-LABEL: func.func @intrinsics(%a: i32, %b: i32, %x: f64, %y: f64) -> (i32, i32, f64, f64) {
// CHECK-NEXT:   %0 = llvm.call_intrinsic "llvm.smax.i32"(%a, %b) : (i32, i32) -> i32
// CHECK-NEXT:   %1 = llvm.call_intrinsic "llvm.umin.i32"(%a, %b) : (i32, i32) -> i32
// CHECK-NEXT:   %2 = llvm.call_intrinsic "llvm.maximum.f64"(%x, %y) : (f64, f64) -> f64
// CHECK-NEXT:   %3 = llvm.call_intrinsic "llvm.minimum.f64"(%x, %y) : (f64, f64) -> f64
// CHECK-NEXT:   func.return %0, %1, %2, %3 : i32, i32, f64, f64
// CHECK-NEXT: }

func.func @casts(%i: i32, %x: f32, %l: i64) -> (i64, i16, f64, f32, f32, i32, i32, i32) {
  %0 = arith.extsi %i : i32 to i64
  %1 = arith.trunci %i : i32 to i16
  %2 = arith.extf %x : f32 to f64
  %3 = arith.sitofp %i : i32 to f32
  %4 = arith.uitofp %l : i64 to f32
  %5 = arith.fptosi %x : f32 to i32
  %6 = arith.fptoui %x : f32 to i32
  %7 = arith.bitcast %x : f32 to i32
  func.return %0, %1, %2, %3, %4, %5, %6, %7 : i64, i16, f64, f32, f32, i32, i32, i32
}
// CHECK-LABEL: func.func @casts(%i: i32, %x: f32, %l: i64) -> (i64, i16, f64, f32, f32, i32, i32, i32) {
// CHECK-NEXT:   %0 = llvm.sext %i : i32 to i64
// CHECK-NEXT:   %1 = llvm.trunc %i : i32 to i16
// CHECK-NEXT:   %2 = llvm.fpext %x : f32 to f64
// CHECK-NEXT:   %3 = llvm.sitofp %i : i32 to f32
// CHECK-NEXT:   %4 = llvm.uitofp %l : i64 to f32
// CHECK-NEXT:   %5 = llvm.fptosi %x : f32 to i32
// CHECK-NEXT:   %6 = llvm.fptoui %x : f32 to i32
// CHECK-NEXT:   %7 = llvm.bitcast %x : f32 to i32
// CHECK-NEXT:   func.return %0, %1, %2, %3, %4, %5, %6, %7 : i64, i16, f64, f32, f32, i32, i32, i32
// CHECK-NEXT: }

func.func @index(%n: index, %i: i32, %l: i64) -> (index, i32, i64) {
  %0 = arith.index_cast %i : i32 to index
  %1 = arith.addi %n, %0 : index
  %2 = arith.index_cast %1 : index to i32
  %3 = arith.index_cast %1 : index to i64
  func.return %1, %2, %3 : index, i32, i64
}
// CHECK-LABEL: func.func @index(%n: index, %i: i32, %l: i64) -> (index, i32, i64) {
// CHECK-NEXT:   %0 = llvm.sext %i : i32 to i64
// CHECK-NEXT:   %n_1 = builtin.unrealized_conversion_cast %n : index to i64
// CHECK-NEXT:   %1 = llvm.add %n_1, %0 : i64
// CHECK-NEXT:   %2 = builtin.unrealized_conversion_cast %1 : i64 to index
// CHECK-NEXT:   %3 = llvm.trunc %1 : i64 to i32
// CHECK-NEXT:   func.return %2, %3, %1 : index, i32, i64
// CHECK-NEXT: }

func.func @compare(%a: i64, %b: i64, %x: f32, %y: f32) -> (i1, i1, i1, i64, f32) {
  %0 = arith.cmpi sge, %a, %b : i64
  %1 = arith.cmpf ult, %x, %y : f32
  %2 = arith.cmpf true, %x, %y : f32
  %3 = arith.select %0, %a, %b : i64
  %4 = arith.negf %x : f32
  func.return %0, %1, %2, %3, %4 : i1, i1, i1, i64, f32
}
// CHECK-LABEL: func.func @compare(%a: i64, %b: i64, %x: f32, %y: f32) -> (i1, i1, i1, i64, f32) {
// CHECK-NEXT:   %0 = llvm.icmp "sge" %a, %b : i64
// CHECK-NEXT:   %1 = llvm.fcmp "ult" %x, %y : f32
// CHECK-NEXT:   %2 = llvm.mlir.constant(true) : i1
// CHECK-NEXT:   %3 = llvm.select %0, %a, %b : i1, i64
// CHECK-NEXT:   %4 = llvm.fneg %x : f32
// CHECK-NEXT:   func.return %0, %1, %2, %3, %4 : i1, i1, i1, i64, f32
// CHECK-NEXT: }

func.func @floordiv(%a: i64, %b: i64) -> i64 {
  %q = arith.floordivsi %a, %b : i64
  func.return %q : i64
}
// CHECK-LABEL: func.func @floordiv(%a: i64, %b: i64) -> i64 {
// CHECK-NEXT:   %0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   %2 = llvm.sdiv %a, %b : i64
// CHECK-NEXT:   %3 = llvm.srem %a, %b : i64
// CHECK-NEXT:   %4 = llvm.icmp "ne" %3, %0 : i64
// CHECK-NEXT:   %5 = llvm.xor %3, %b : i64
// CHECK-NEXT:   %6 = llvm.icmp "slt" %5, %0 : i64
// CHECK-NEXT:   %7 = llvm.and %4, %6 : i1
// CHECK-NEXT:   %8 = llvm.sub %2, %1 : i64
// CHECK-NEXT:   %q = llvm.select %7, %8, %2 : i1, i64
// CHECK-NEXT:   func.return %q : i64
// CHECK-NEXT: }

func.func @ceildiv(%a: i32, %b: i32) -> (i32, i32) {
  %q = arith.ceildivsi %a, %b : i32
  %u = arith.ceildivui %a, %b : i32
  func.return %q, %u : i32, i32
}
// CHECK-LABEL: func.func @ceildiv(%a: i32, %b: i32) -> (i32, i32) {
// CHECK-NEXT:   %0 = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %1 = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %2 = llvm.sdiv %a, %b : i32
// CHECK-NEXT:   %3 = llvm.srem %a, %b : i32
// CHECK-NEXT:   %4 = llvm.icmp "ne" %3, %0 : i32
// CHECK-NEXT:   %5 = llvm.xor %3, %b : i32
// CHECK-NEXT:   %6 = llvm.icmp "sge" %5, %0 : i32
// CHECK-NEXT:   %7 = llvm.and %4, %6 : i1
// CHECK-NEXT:   %8 = llvm.add %2, %1 : i32
// CHECK-NEXT:   %q = llvm.select %7, %8, %2 : i1, i32
// CHECK-NEXT:   %9 = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %10 = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %11 = llvm.udiv %a, %b : i32
// CHECK-NEXT:   %12 = llvm.urem %a, %b : i32
// CHECK-NEXT:   %13 = llvm.icmp "ne" %12, %9 : i32
// CHECK-NEXT:   %14 = llvm.add %11, %10 : i32
// CHECK-NEXT:   %u = llvm.select %13, %14, %11 : i1, i32
// CHECK-NEXT:   func.return %q, %u : i32, i32
// CHECK-NEXT: }
