// RUN: ts-opt %s -p convert-math-to-llvm | filecheck %s

// Declarations of the C library functions called below.
// CHECK:      llvm.func @log1pf(f32) -> f32
// CHECK-NEXT: llvm.func @expm1f(f32) -> f32
// CHECK-NEXT: llvm.func @erf(f64) -> f64

// Ops LLVM compiles to instructions map to llvm.intr ops or intrinsic calls.
func.func @intrinsics(%x: f32, %y: f32, %z: f32, %i: i32) -> (f32, f32, f32, f32, f32, f32, f32, i32, i32) {
  %0 = math.absf %x : f32
  %1 = math.floor %x : f32
  %2 = math.sqrt %x : f32
  %3 = math.fma %x, %y, %z : f32
  %4 = math.copysign %x, %y : f32
  %5 = math.roundeven %x : f32
  %6 = math.fpowi %x, %i : f32, i32
  %7 = math.absi %i : i32
  %8 = math.ctpop %i : i32
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8 : f32, f32, f32, f32, f32, f32, f32, i32, i32
}
// CHECK-LABEL: func.func @intrinsics(%x: f32, %y: f32, %z: f32, %i: i32) -> (f32, f32, f32, f32, f32, f32, f32, i32, i32) {
// CHECK-NEXT:   %0 = llvm.intr.fabs(%x) : (f32) -> f32
// CHECK-NEXT:   %1 = llvm.intr.floor(%x) : (f32) -> f32
// CHECK-NEXT:   %2 = llvm.intr.sqrt(%x) : (f32) -> f32
// CHECK-NEXT:   %3 = llvm.intr.fma(%x, %y, %z) : (f32, f32, f32) -> f32
// CHECK-NEXT:   %4 = llvm.intr.copysign(%x, %y) : (f32, f32) -> f32
// CHECK-NEXT:   %5 = llvm.call_intrinsic "llvm.roundeven.f32"(%x) : (f32) -> f32
// CHECK-NEXT:   %6 = llvm.call_intrinsic "llvm.powi.f32.i32"(%x, %i) : (f32, i32) -> f32
// CHECK-NEXT:   %7 = llvm.mlir.constant(false) : i1
// CHECK-NEXT:   %8 = llvm.call_intrinsic "llvm.abs.i32"(%i, %7) : (i32, i1) -> i32
// CHECK-NEXT:   %9 = llvm.call_intrinsic "llvm.ctpop.i32"(%i) : (i32) -> i32
// CHECK-NEXT:   func.return %0, %1, %2, %3, %4, %5, %6, %8, %9 : f32, f32, f32, f32, f32, f32, f32, i32, i32
// CHECK-NEXT: }

func.func @rsqrt(%x: f64) -> f64 {
  %0 = math.rsqrt %x : f64
  func.return %0 : f64
}
// CHECK-LABEL: func.func @rsqrt(%x: f64) -> f64 {
// CHECK-NEXT:   %0 = llvm.mlir.constant(1.000000e+00 : f64) : f64
// CHECK-NEXT:   %1 = llvm.intr.sqrt(%x) : (f64) -> f64
// CHECK-NEXT:   %2 = llvm.fdiv %0, %1 : f64
// CHECK-NEXT:   func.return %2 : f64
// CHECK-NEXT: }

// On f64, the transcendental functions keep the accurate intrinsic or libm call.
func.func @f64_functions(%x: f64, %y: f64) -> (f64, f64, f64, f64, f64, f64) {
  %0 = math.exp %x : f64
  %1 = math.log %x : f64
  %2 = math.tanh %x : f64
  %3 = math.erf %x : f64
  %4 = math.powf %x, %y : f64
  %5 = math.atan2 %x, %y : f64
  func.return %0, %1, %2, %3, %4, %5 : f64, f64, f64, f64, f64, f64
}
// CHECK-LABEL: func.func @f64_functions(%x: f64, %y: f64) -> (f64, f64, f64, f64, f64, f64) {
// CHECK-NEXT:   %0 = llvm.intr.exp(%x) : (f64) -> f64
// CHECK-NEXT:   %1 = llvm.intr.log(%x) : (f64) -> f64
// CHECK-NEXT:   %2 = llvm.call_intrinsic "llvm.tanh.f64"(%x) : (f64) -> f64
// CHECK-NEXT:   %3 = llvm.call @erf(%x) : (f64) -> f64
// CHECK-NEXT:   %4 = llvm.intr.pow(%x, %y) : (f64, f64) -> f64
// CHECK-NEXT:   %5 = llvm.call_intrinsic "llvm.atan2.f64"(%x, %y) : (f64, f64) -> f64
// CHECK-NEXT:   func.return %0, %1, %2, %3, %4, %5 : f64, f64, f64, f64, f64, f64
// CHECK-NEXT: }

func.func @libm(%x: f32) -> f32 {
  %0 = math.expm1 %x : f32
  %1 = math.log1p %0 : f32
  func.return %1 : f32
}
// CHECK-LABEL: func.func @libm(%x: f32) -> f32 {
// CHECK-NEXT:   %0 = llvm.call @expm1f(%x) : (f32) -> f32
// CHECK-NEXT:   %1 = llvm.call @log1pf(%0) : (f32) -> f32
// CHECK-NEXT:   func.return %1 : f32
// CHECK-NEXT: }

// On f32, tanh is an inline rational approximation: no call, so loops vectorize.
func.func @tanh(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  func.return %0 : f32
}
// CHECK-LABEL: func.func @tanh(%x: f32) -> f32 {
// CHECK-NEXT:   %0 = llvm.mlir.constant(-7.90531111 : f32) : f32
// CHECK-NEXT:   %1 = llvm.fcmp "olt" %x, %0 : f32
// CHECK-NEXT:   %2 = llvm.select %1, %0, %x : i1, f32
// CHECK-NEXT:   %3 = llvm.mlir.constant(7.90531111 : f32) : f32
// CHECK-NEXT:   %4 = llvm.fcmp "ogt" %2, %3 : f32
// CHECK-NEXT:   %5 = llvm.select %4, %3, %2 : i1, f32
// CHECK-NEXT:   %6 = llvm.fmul %5, %5 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %7 = llvm.mlir.constant(-5.64167684e-14 : f32) : f32
// CHECK-NEXT:   %8 = llvm.fmul %7, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %9 = llvm.mlir.constant(4.0874179e-11 : f32) : f32
// CHECK-NEXT:   %10 = llvm.fadd %8, %9 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %11 = llvm.fmul %10, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %12 = llvm.mlir.constant(-1.75837922e-08 : f32) : f32
// CHECK-NEXT:   %13 = llvm.fadd %11, %12 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %14 = llvm.fmul %13, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %15 = llvm.mlir.constant(1.04675009e-05 : f32) : f32
// CHECK-NEXT:   %16 = llvm.fadd %14, %15 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %17 = llvm.fmul %16, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %18 = llvm.mlir.constant(0.00303609879 : f32) : f32
// CHECK-NEXT:   %19 = llvm.fadd %17, %18 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %20 = llvm.fmul %19, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %21 = llvm.mlir.constant(0.130225554 : f32) : f32
// CHECK-NEXT:   %22 = llvm.fadd %20, %21 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %23 = llvm.fmul %22, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %24 = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:   %25 = llvm.fadd %23, %24 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %26 = llvm.fmul %5, %25 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %27 = llvm.mlir.constant(0.000244866125 : f32) : f32
// CHECK-NEXT:   %28 = llvm.fmul %27, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %29 = llvm.mlir.constant(0.024222767 : f32) : f32
// CHECK-NEXT:   %30 = llvm.fadd %28, %29 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %31 = llvm.fmul %30, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %32 = llvm.mlir.constant(0.463558435 : f32) : f32
// CHECK-NEXT:   %33 = llvm.fadd %31, %32 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %34 = llvm.fmul %33, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %35 = llvm.mlir.constant(1.00000012 : f32) : f32
// CHECK-NEXT:   %36 = llvm.fadd %34, %35 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %37 = llvm.fdiv %26, %36 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   func.return %37 : f32
// CHECK-NEXT: }

// exp: reduction to [-ln2/2, ln2/2], polynomial, 2^n in the exponent bits.
func.func @exp(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  func.return %0 : f32
}
// CHECK-LABEL: func.func @exp(%x: f32) -> f32 {
// CHECK-NEXT:   %0 = llvm.mlir.constant(-1.040000e+02 : f32) : f32
// CHECK-NEXT:   %1 = llvm.fcmp "olt" %x, %0 : f32
// CHECK-NEXT:   %2 = llvm.select %1, %0, %x : i1, f32
// CHECK-NEXT:   %3 = llvm.mlir.constant(8.900000e+01 : f32) : f32
// CHECK-NEXT:   %4 = llvm.fcmp "ogt" %2, %3 : f32
// CHECK-NEXT:   %5 = llvm.select %4, %3, %2 : i1, f32
// CHECK-NEXT:   %6 = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT:   %7 = llvm.fmul %5, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %8 = llvm.mlir.constant(0x4B400000 : f32) : f32
// CHECK-NEXT:   %9 = llvm.fadd %7, %8 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %10 = llvm.fsub %9, %8 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %11 = llvm.mlir.constant(0.693359375 : f32) : f32
// CHECK-NEXT:   %12 = llvm.fmul %10, %11 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %13 = llvm.fsub %5, %12 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %14 = llvm.mlir.constant(-0.000212194442 : f32) : f32
// CHECK-NEXT:   %15 = llvm.fmul %10, %14 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %16 = llvm.fsub %13, %15 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %17 = llvm.mlir.constant(0.000198756912 : f32) : f32
// CHECK-NEXT:   %18 = llvm.fmul %17, %16 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %19 = llvm.mlir.constant(0.00139819994 : f32) : f32
// CHECK-NEXT:   %20 = llvm.fadd %18, %19 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %21 = llvm.fmul %20, %16 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %22 = llvm.mlir.constant(0.00833345205 : f32) : f32
// CHECK-NEXT:   %23 = llvm.fadd %21, %22 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %24 = llvm.fmul %23, %16 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %25 = llvm.mlir.constant(0.0416657962 : f32) : f32
// CHECK-NEXT:   %26 = llvm.fadd %24, %25 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %27 = llvm.fmul %26, %16 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %28 = llvm.mlir.constant(0.166666657 : f32) : f32
// CHECK-NEXT:   %29 = llvm.fadd %27, %28 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %30 = llvm.fmul %29, %16 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %31 = llvm.mlir.constant(5.000000e-01 : f32) : f32
// CHECK-NEXT:   %32 = llvm.fadd %30, %31 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %33 = llvm.fmul %16, %16 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %34 = llvm.fmul %32, %33 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %35 = llvm.fadd %34, %16 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %36 = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:   %37 = llvm.fadd %35, %36 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %38 = llvm.bitcast %9 : f32 to i32
// CHECK-NEXT:   %39 = llvm.mlir.constant(1262485504 : i32) : i32
// CHECK-NEXT:   %40 = llvm.sub %38, %39 : i32
// CHECK-NEXT:   %41 = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %42 = llvm.ashr %40, %41 : i32
// CHECK-NEXT:   %43 = llvm.mlir.constant(127 : i32) : i32
// CHECK-NEXT:   %44 = llvm.mlir.constant(23 : i32) : i32
// CHECK-NEXT:   %45 = llvm.add %42, %43 : i32
// CHECK-NEXT:   %46 = llvm.shl %45, %44 : i32
// CHECK-NEXT:   %47 = llvm.bitcast %46 : i32 to f32
// CHECK-NEXT:   %48 = llvm.sub %40, %42 : i32
// CHECK-NEXT:   %49 = llvm.add %48, %43 : i32
// CHECK-NEXT:   %50 = llvm.shl %49, %44 : i32
// CHECK-NEXT:   %51 = llvm.bitcast %50 : i32 to f32
// CHECK-NEXT:   %52 = llvm.fmul %37, %47 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %53 = llvm.fmul %52, %51 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   func.return %53 : f32
// CHECK-NEXT: }

// f16 is computed in f32.
func.func @log_f16(%x: f16) -> f16 {
  %0 = math.log %x : f16
  func.return %0 : f16
}
// CHECK-LABEL: func.func @log_f16(%x: f16) -> f16 {
// CHECK-NEXT:   %0 = llvm.fpext %x : f16 to f32
// CHECK-NEXT:   %1 = llvm.mlir.constant(1.17549435e-38 : f32) : f32
// CHECK-NEXT:   %2 = llvm.fcmp "olt" %0, %1 : f32
// CHECK-NEXT:   %3 = llvm.mlir.constant(0x4B000000 : f32) : f32
// CHECK-NEXT:   %4 = llvm.fmul %0, %3 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NOT:   llvm.call
// CHECK:        %70 = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT:   %71 = llvm.fcmp "oeq" %0, %70 : f32
// CHECK-NEXT:   %72 = llvm.mlir.constant(0xff800000 : f32) : f32
// CHECK-NEXT:   %73 = llvm.select %71, %72, %69 : i1, f32
// CHECK-NEXT:   %74 = llvm.fcmp "ult" %0, %70 : f32
// CHECK-NEXT:   %75 = llvm.mlir.constant(0x7fc00000 : f32) : f32
// CHECK-NEXT:   %76 = llvm.select %74, %75, %73 : i1, f32
// CHECK-NEXT:   %77 = llvm.fptrunc %76 : f32 to f16
// CHECK-NEXT:   func.return %77 : f16
// CHECK-NEXT: }

func.func @erf_f32(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  func.return %0 : f32
}
// CHECK-LABEL: func.func @erf_f32(%x: f32) -> f32 {
// CHECK-NEXT:   %0 = llvm.mlir.constant(-4.000000e+00 : f32) : f32
// CHECK-NEXT:   %1 = llvm.fcmp "olt" %x, %0 : f32
// CHECK-NEXT:   %2 = llvm.select %1, %0, %x : i1, f32
// CHECK-NEXT:   %3 = llvm.mlir.constant(4.000000e+00 : f32) : f32
// CHECK-NEXT:   %4 = llvm.fcmp "ogt" %2, %3 : f32
// CHECK-NEXT:   %5 = llvm.select %4, %3, %2 : i1, f32
// CHECK-NEXT:   %6 = llvm.fmul %5, %5 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %7 = llvm.mlir.constant(-2.72614237e-10 : f32) : f32
// CHECK-NEXT:   %8 = llvm.fmul %7, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %9 = llvm.mlir.constant(2.77068146e-08 : f32) : f32
// CHECK-NEXT:   %10 = llvm.fadd %8, %9 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %11 = llvm.fmul %10, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %12 = llvm.mlir.constant(-2.10102394e-06 : f32) : f32
// CHECK-NEXT:   %13 = llvm.fadd %11, %12 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %14 = llvm.fmul %13, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %15 = llvm.mlir.constant(-5.69250624e-05 : f32) : f32
// CHECK-NEXT:   %16 = llvm.fadd %14, %15 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %17 = llvm.fmul %16, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %18 = llvm.mlir.constant(-0.000734990637 : f32) : f32
// CHECK-NEXT:   %19 = llvm.fadd %17, %18 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %20 = llvm.fmul %19, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %21 = llvm.mlir.constant(-2.954600e-03 : f32) : f32
// CHECK-NEXT:   %22 = llvm.fadd %20, %21 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %23 = llvm.fmul %22, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %24 = llvm.mlir.constant(-0.0160960332 : f32) : f32
// CHECK-NEXT:   %25 = llvm.fadd %23, %24 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %26 = llvm.fmul %5, %25 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %27 = llvm.mlir.constant(-1.45660715e-05 : f32) : f32
// CHECK-NEXT:   %28 = llvm.fmul %27, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %29 = llvm.mlir.constant(-0.000213374049 : f32) : f32
// CHECK-NEXT:   %30 = llvm.fadd %28, %29 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %31 = llvm.fmul %30, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %32 = llvm.mlir.constant(-0.00168282702 : f32) : f32
// CHECK-NEXT:   %33 = llvm.fadd %31, %32 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %34 = llvm.fmul %33, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %35 = llvm.mlir.constant(-0.00737332925 : f32) : f32
// CHECK-NEXT:   %36 = llvm.fadd %34, %35 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %37 = llvm.fmul %36, %6 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %38 = llvm.mlir.constant(-0.0142647391 : f32) : f32
// CHECK-NEXT:   %39 = llvm.fadd %37, %38 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %40 = llvm.fdiv %26, %39 {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   func.return %40 : f32
// CHECK-NEXT: }
