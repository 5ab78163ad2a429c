// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// Every !ts.* type prints back as it was written; non-canonical spellings normalize.

%int = "test.op"() : () -> !ts.int
%float = "test.op"() : () -> !ts.float
%bool = "test.op"() : () -> !ts.bool
%str = "test.op"() : () -> !ts.str
%none = "test.op"() : () -> !ts.none
%device = "test.op"() : () -> !ts.device
%number = "test.op"() : () -> !ts.number
%any = "test.op"() : () -> !ts.any
%complex = "test.op"() : () -> !ts.complex

// CHECK:      %int = "test.op"() : () -> !ts.int
// CHECK-NEXT: %float = "test.op"() : () -> !ts.float
// CHECK-NEXT: %bool = "test.op"() : () -> !ts.bool
// CHECK-NEXT: %str = "test.op"() : () -> !ts.str
// CHECK-NEXT: %none = "test.op"() : () -> !ts.none
// CHECK-NEXT: %device = "test.op"() : () -> !ts.device
// CHECK-NEXT: %number = "test.op"() : () -> !ts.number
// CHECK-NEXT: %any = "test.op"() : () -> !ts.any
// CHECK-NEXT: %complex = "test.op"() : () -> !ts.complex

// CHECK-GENERIC:      %int = "test.op"() : () -> !ts.int
// CHECK-GENERIC-NEXT: %float = "test.op"() : () -> !ts.float
// CHECK-GENERIC-NEXT: %bool = "test.op"() : () -> !ts.bool
// CHECK-GENERIC-NEXT: %str = "test.op"() : () -> !ts.str
// CHECK-GENERIC-NEXT: %none = "test.op"() : () -> !ts.none
// CHECK-GENERIC-NEXT: %device = "test.op"() : () -> !ts.device
// CHECK-GENERIC-NEXT: %number = "test.op"() : () -> !ts.number
// CHECK-GENERIC-NEXT: %any = "test.op"() : () -> !ts.any
// CHECK-GENERIC-NEXT: %complex = "test.op"() : () -> !ts.complex

%t = "test.op"() : () -> !ts.tensor
%t_unknown = "test.op"() : () -> !ts.tensor<*>
%t_f32 = "test.op"() : () -> !ts.tensor<f32>
%t_sizes = "test.op"() : () -> !ts.tensor<f32, [2, ?, 3]>
%t_rank0 = "test.op"() : () -> !ts.tensor<f64, []>
%t_no_dtype = "test.op"() : () -> !ts.tensor<*, [?, 4]>
%t_full = "test.op"() : () -> !ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>
%t_reordered = "test.op"() : () -> !ts.tensor<f32, requires_grad = true, device = "cuda:0", [2]>

// CHECK-NEXT: %t = "test.op"() : () -> !ts.tensor
// CHECK-NEXT: %t_unknown = "test.op"() : () -> !ts.tensor
// CHECK-NEXT: %t_f32 = "test.op"() : () -> !ts.tensor<f32>
// CHECK-NEXT: %t_sizes = "test.op"() : () -> !ts.tensor<f32, [2, ?, 3]>
// CHECK-NEXT: %t_rank0 = "test.op"() : () -> !ts.tensor<f64, []>
// CHECK-NEXT: %t_no_dtype = "test.op"() : () -> !ts.tensor<*, [?, 4]>
// CHECK-NEXT: %t_full = "test.op"() : () -> !ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>
// CHECK-NEXT: %t_reordered = "test.op"() : () -> !ts.tensor<f32, [2], device = "cuda:0", requires_grad = true>

// CHECK-GENERIC-NEXT: %t = "test.op"() : () -> !ts.tensor
// CHECK-GENERIC-NEXT: %t_unknown = "test.op"() : () -> !ts.tensor
// CHECK-GENERIC-NEXT: %t_f32 = "test.op"() : () -> !ts.tensor<f32>
// CHECK-GENERIC-NEXT: %t_sizes = "test.op"() : () -> !ts.tensor<f32, [2, ?, 3]>
// CHECK-GENERIC-NEXT: %t_rank0 = "test.op"() : () -> !ts.tensor<f64, []>
// CHECK-GENERIC-NEXT: %t_no_dtype = "test.op"() : () -> !ts.tensor<*, [?, 4]>
// CHECK-GENERIC-NEXT: %t_full = "test.op"() : () -> !ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>
// CHECK-GENERIC-NEXT: %t_reordered = "test.op"() : () -> !ts.tensor<f32, [2], device = "cuda:0", requires_grad = true>

// Every TorchScript dtype: Byte Char Short Int Long Half Float Double ComplexFloat
// ComplexDouble Bool BFloat16.
%dtypes:12 = "test.op"() : () -> (!ts.tensor<ui8>, !ts.tensor<i8>, !ts.tensor<i16>, !ts.tensor<i32>, !ts.tensor<i64>, !ts.tensor<f16>, !ts.tensor<f32>, !ts.tensor<f64>, !ts.tensor<complex<f32>>, !ts.tensor<complex<f64>>, !ts.tensor<i1>, !ts.tensor<bf16>)

// CHECK-NEXT: %dtypes, %dtypes_1, %dtypes_2, %dtypes_3, %dtypes_4, %dtypes_5, %dtypes_6, %dtypes_7, %dtypes_8, %dtypes_9, %dtypes_10, %dtypes_11 = "test.op"() : () -> (!ts.tensor<ui8>, !ts.tensor<i8>, !ts.tensor<i16>, !ts.tensor<i32>, !ts.tensor<i64>, !ts.tensor<f16>, !ts.tensor<f32>, !ts.tensor<f64>, !ts.tensor<complex<f32>>, !ts.tensor<complex<f64>>, !ts.tensor<i1>, !ts.tensor<bf16>)
// CHECK-GENERIC-NEXT: %dtypes, %dtypes_1, %dtypes_2, %dtypes_3, %dtypes_4, %dtypes_5, %dtypes_6, %dtypes_7, %dtypes_8, %dtypes_9, %dtypes_10, %dtypes_11 = "test.op"() : () -> (!ts.tensor<ui8>, !ts.tensor<i8>, !ts.tensor<i16>, !ts.tensor<i32>, !ts.tensor<i64>, !ts.tensor<f16>, !ts.tensor<f32>, !ts.tensor<f64>, !ts.tensor<complex<f32>>, !ts.tensor<complex<f64>>, !ts.tensor<i1>, !ts.tensor<bf16>)

%list = "test.op"() : () -> !ts.list<!ts.int>
%nested = "test.op"() : () -> !ts.list<!ts.list<!ts.tensor<f32>>>
%optional = "test.op"() : () -> !ts.optional<!ts.tensor>
%future = "test.op"() : () -> !ts.future<!ts.int>
%await = "test.op"() : () -> !ts.await<!ts.tensor>
%rref = "test.op"() : () -> !ts.rref<!ts.int>
%tuple = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
%empty_tuple = "test.op"() : () -> !ts.tuple<>
%named = "test.op"() : () -> !ts.tuple<"__torch__.P", "x": !ts.int, "y": !ts.float>
%fields = "test.op"() : () -> !ts.tuple<"values": !ts.tensor, "indices": !ts.tensor>
%dict = "test.op"() : () -> !ts.dict<!ts.str, !ts.tensor>
%union = "test.op"() : () -> !ts.union<!ts.int, !ts.str>
%class = "test.op"() : () -> !ts.class<"__torch__.source.Model">
%enum = "test.op"() : () -> !ts.enum<"__torch__.Color">
%opaque = "test.op"() : () -> !ts.opaque<"Generator">

// CHECK-NEXT: %list = "test.op"() : () -> !ts.list<!ts.int>
// CHECK-NEXT: %nested = "test.op"() : () -> !ts.list<!ts.list<!ts.tensor<f32>>>
// CHECK-NEXT: %optional = "test.op"() : () -> !ts.optional<!ts.tensor>
// CHECK-NEXT: %future = "test.op"() : () -> !ts.future<!ts.int>
// CHECK-NEXT: %await = "test.op"() : () -> !ts.await<!ts.tensor>
// CHECK-NEXT: %rref = "test.op"() : () -> !ts.rref<!ts.int>
// CHECK-NEXT: %tuple = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
// CHECK-NEXT: %empty_tuple = "test.op"() : () -> !ts.tuple
// CHECK-NEXT: %named = "test.op"() : () -> !ts.tuple<"__torch__.P", "x": !ts.int, "y": !ts.float>
// CHECK-NEXT: %fields = "test.op"() : () -> !ts.tuple<"values": !ts.tensor, "indices": !ts.tensor>
// CHECK-NEXT: %dict = "test.op"() : () -> !ts.dict<!ts.str, !ts.tensor>
// CHECK-NEXT: %union = "test.op"() : () -> !ts.union<!ts.int, !ts.str>
// CHECK-NEXT: %class = "test.op"() : () -> !ts.class<"__torch__.source.Model">
// CHECK-NEXT: %enum = "test.op"() : () -> !ts.enum<"__torch__.Color">
// CHECK-NEXT: %opaque = "test.op"() : () -> !ts.opaque<"Generator">

// CHECK-GENERIC-NEXT: %list = "test.op"() : () -> !ts.list<!ts.int>
// CHECK-GENERIC-NEXT: %nested = "test.op"() : () -> !ts.list<!ts.list<!ts.tensor<f32>>>
// CHECK-GENERIC-NEXT: %optional = "test.op"() : () -> !ts.optional<!ts.tensor>
// CHECK-GENERIC-NEXT: %future = "test.op"() : () -> !ts.future<!ts.int>
// CHECK-GENERIC-NEXT: %await = "test.op"() : () -> !ts.await<!ts.tensor>
// CHECK-GENERIC-NEXT: %rref = "test.op"() : () -> !ts.rref<!ts.int>
// CHECK-GENERIC-NEXT: %tuple = "test.op"() : () -> !ts.tuple<!ts.tensor, !ts.int>
// CHECK-GENERIC-NEXT: %empty_tuple = "test.op"() : () -> !ts.tuple
// CHECK-GENERIC-NEXT: %named = "test.op"() : () -> !ts.tuple<"__torch__.P", "x": !ts.int, "y": !ts.float>
// CHECK-GENERIC-NEXT: %fields = "test.op"() : () -> !ts.tuple<"values": !ts.tensor, "indices": !ts.tensor>
// CHECK-GENERIC-NEXT: %dict = "test.op"() : () -> !ts.dict<!ts.str, !ts.tensor>
// CHECK-GENERIC-NEXT: %union = "test.op"() : () -> !ts.union<!ts.int, !ts.str>
// CHECK-GENERIC-NEXT: %class = "test.op"() : () -> !ts.class<"__torch__.source.Model">
// CHECK-GENERIC-NEXT: %enum = "test.op"() : () -> !ts.enum<"__torch__.Color">
// CHECK-GENERIC-NEXT: %opaque = "test.op"() : () -> !ts.opaque<"Generator">

// -----

// Types in function signatures.

func.func @forward(%self : !ts.class<"__torch__.M">, %x.1 : !ts.tensor<f32, [2, ?]>) -> !ts.tuple<!ts.tensor, !ts.optional<!ts.int>> {
  %r = "test.op"(%x.1) : (!ts.tensor<f32, [2, ?]>) -> !ts.tuple<!ts.tensor, !ts.optional<!ts.int>>
  func.return %r : !ts.tuple<!ts.tensor, !ts.optional<!ts.int>>
}

// CHECK:      func.func @forward(%self: !ts.class<"__torch__.M">, %x.1: !ts.tensor<f32, [2, ?]>) -> !ts.tuple<!ts.tensor, !ts.optional<!ts.int>> {
// CHECK-NEXT:   %r = "test.op"(%x.1) : (!ts.tensor<f32, [2, ?]>) -> !ts.tuple<!ts.tensor, !ts.optional<!ts.int>>
// CHECK-NEXT:   func.return %r : !ts.tuple<!ts.tensor, !ts.optional<!ts.int>>
// CHECK-NEXT: }

// CHECK-GENERIC:      "func.func"() <{sym_name = "forward", function_type = (!ts.class<"__torch__.M">, !ts.tensor<f32, [2, ?]>) -> !ts.tuple<!ts.tensor, !ts.optional<!ts.int>>}> ({
// CHECK-GENERIC-NEXT: ^bb0(%self: !ts.class<"__torch__.M">, %x.1: !ts.tensor<f32, [2, ?]>):
// CHECK-GENERIC-NEXT:   %r = "test.op"(%x.1) : (!ts.tensor<f32, [2, ?]>) -> !ts.tuple<!ts.tensor, !ts.optional<!ts.int>>
// CHECK-GENERIC-NEXT:   "func.return"(%r) : (!ts.tuple<!ts.tensor, !ts.optional<!ts.int>>) -> ()
// CHECK-GENERIC-NEXT: }) : () -> ()
