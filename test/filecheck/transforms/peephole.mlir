// RUN: ts-opt %s --split-input-file -p peephole | filecheck %s

// `x + 0`, `x - 0`, `x * 1`, `x / 1` on tensors whose dtype makes them no-ops.
// CHECK-LABEL: func.func @tensor_identities
// CHECK:         %f = aten.neg %p
// CHECK-NEXT:    %i = aten.neg %q
// CHECK-NEXT:    %r = prim.TupleConstruct %f, %f, %f, %f, %i, %i
func.func @tensor_identities(%p : !ts.tensor<f32, [2]>, %q : !ts.tensor<i64, [2]>) -> !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor> {
  %zero = prim.Constant 0 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %fone = prim.Constant 1.0 : !ts.float
  %f = aten.neg %p : (!ts.tensor<f32, [2]>) -> !ts.tensor<f32, [2]>
  %i = aten.neg %q : (!ts.tensor<i64, [2]>) -> !ts.tensor<i64, [2]>
  %a = aten.add %f, %zero, %one : (!ts.tensor<f32, [2]>, !ts.int, !ts.int) -> !ts.tensor
  %b = aten.sub %f, %zero, %one : (!ts.tensor<f32, [2]>, !ts.int, !ts.int) -> !ts.tensor
  %c = aten.mul %f, %fone : (!ts.tensor<f32, [2]>, !ts.float) -> !ts.tensor
  %d = aten.div %f, %one : (!ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor
  %e = aten.add %i, %zero, %one : (!ts.tensor<i64, [2]>, !ts.int, !ts.int) -> !ts.tensor
  %g = aten.mul %i, %one : (!ts.tensor<i64, [2]>, !ts.int) -> !ts.tensor
  %r = prim.TupleConstruct %a, %b, %c, %d, %e, %g : (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor>
  func.return %r : !ts.tuple<!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor>
}

// -----

// Not no-ops: an unknown dtype, a Bool tensor (Bool + 0 is Long), a float scalar on an
// integral tensor, true division of an integral tensor, an alpha other than 1, a value
// that is written later, and a graph input returned as is (the input and the output
// would become one tensor).
// CHECK-LABEL: func.func @tensor_identities_kept
// CHECK-COUNT-6: = aten.
// CHECK-NEXT:    %w = aten.add_ %r6
// CHECK-NEXT:    %r7 = aten.mul %f, %one
func.func @tensor_identities_kept(%u : !ts.tensor, %b : !ts.tensor<i1, [2]>, %i : !ts.tensor<i64, [2]>, %f : !ts.tensor<f32, [2]>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor<f32, [2]>) {
  %zero = prim.Constant 0 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %fzero = prim.Constant 0.0 : !ts.float
  %r1 = aten.add %u, %zero, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %r2 = aten.add %b, %zero, %one : (!ts.tensor<i1, [2]>, !ts.int, !ts.int) -> !ts.tensor
  %r3 = aten.add %i, %fzero, %one : (!ts.tensor<i64, [2]>, !ts.float, !ts.int) -> !ts.tensor
  %r4 = aten.div %i, %one : (!ts.tensor<i64, [2]>, !ts.int) -> !ts.tensor
  %r5 = aten.add %f, %zero, %two : (!ts.tensor<f32, [2]>, !ts.int, !ts.int) -> !ts.tensor
  %r6 = aten.mul %f, %one : (!ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor
  %w = aten.add_ %r6, %f, %one : (!ts.tensor, !ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor
  %r7 = aten.mul %f, %one : (!ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor<f32, [2]>
  func.return %r1, %r2, %r3, %r4, %r5, %w, %r7 : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor<f32, [2]>
}

// -----

// Not no-ops: an unknown dtype, a Bool tensor (Bool + 0 is Long), a float scalar on an
// integral tensor, true division of an integral tensor, an alpha other than 1, and a
// value that is written later.
// CHECK-LABEL: func.func @tensor_identities_kept
// CHECK-COUNT-6: aten.
// CHECK:         aten.add_
func.func @tensor_identities_kept(%u : !ts.tensor, %b : !ts.tensor<i1, [2]>, %i : !ts.tensor<i64, [2]>, %f : !ts.tensor<f32, [2]>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %zero = prim.Constant 0 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %fzero = prim.Constant 0.0 : !ts.float
  %r1 = aten.add %u, %zero, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %r2 = aten.add %b, %zero, %one : (!ts.tensor<i1, [2]>, !ts.int, !ts.int) -> !ts.tensor
  %r3 = aten.add %i, %fzero, %one : (!ts.tensor<i64, [2]>, !ts.float, !ts.int) -> !ts.tensor
  %r4 = aten.div %i, %one : (!ts.tensor<i64, [2]>, !ts.int) -> !ts.tensor
  %r5 = aten.add %f, %zero, %two : (!ts.tensor<f32, [2]>, !ts.int, !ts.int) -> !ts.tensor
  %r6 = aten.mul %f, %one : (!ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor
  %w = aten.add_ %r6, %f, %one : (!ts.tensor, !ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor
  func.return %r1, %r2, %r3, %r4, %r5, %w : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}

// -----

// Int identities, and number → tensor → number round trips.
// CHECK-LABEL: func.func @scalar_identities
// CHECK:         func.return %n, %n, %n, %n, %n, %x
func.func @scalar_identities(%n : !ts.int, %x : !ts.float) -> (!ts.int, !ts.int, !ts.int, !ts.int, !ts.int, !ts.float) {
  %zero = prim.Constant 0 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %a = aten.add %n, %zero : (!ts.int, !ts.int) -> !ts.int
  %b = aten.sub %n, %zero : (!ts.int, !ts.int) -> !ts.int
  %c = aten.mul %n, %one : (!ts.int, !ts.int) -> !ts.int
  %d = aten.floordiv %n, %one : (!ts.int, !ts.int) -> !ts.int
  %t = prim.NumToTensor %n : (!ts.int) -> !ts.tensor
  %e = aten.Int %t : (!ts.tensor) -> !ts.int
  %u = prim.NumToTensor %x : (!ts.float) -> !ts.tensor
  %f = aten.Float %u : (!ts.tensor) -> !ts.float
  func.return %a, %b, %c, %d, %e, %f : !ts.int, !ts.int, !ts.int, !ts.int, !ts.int, !ts.float
}

// -----

// Queries the tensor type answers: sizes, one size, rank, dtype (6 is Float), device.
// CHECK-LABEL: func.func @tensor_queries
// CHECK:         %[[SIZES:.*]] = prim.Constant [2, 3] : !ts.list<!ts.int>
// CHECK-NEXT:    %{{.*}} = aten.sum %[[SIZES]]
// CHECK:         %[[SIZE:.*]] = prim.Constant 3 : !ts.int
// CHECK:         %[[RANK:.*]] = prim.Constant 2 : !ts.int
// CHECK:         %[[DTYPE:.*]] = prim.Constant 6 : !ts.int
// CHECK:         %[[DEVICE:.*]] = prim.Constant "cpu" : !ts.device
// CHECK:         %[[UNKNOWN:.*]] = aten.dim %u
// CHECK:         func.return %{{.*}}, %[[SIZE]], %[[RANK]], %[[DTYPE]], %[[DEVICE]], %[[UNKNOWN]]
func.func @tensor_queries(%x : !ts.tensor<f32, [2, 3], device = "cpu">, %u : !ts.tensor) -> (!ts.int, !ts.int, !ts.int, !ts.int, !ts.device, !ts.int) {
  %one = prim.Constant 1 : !ts.int
  %sizes = aten.size %x : (!ts.tensor<f32, [2, 3], device = "cpu">) -> !ts.list<!ts.int>
  %total = aten.sum %sizes : (!ts.list<!ts.int>) -> !ts.int
  %size = aten.size %x, %one : (!ts.tensor<f32, [2, 3], device = "cpu">, !ts.int) -> !ts.int
  %rank = aten.dim %x : (!ts.tensor<f32, [2, 3], device = "cpu">) -> !ts.int
  %dtype = prim.dtype %x : (!ts.tensor<f32, [2, 3], device = "cpu">) -> !ts.int
  %device = prim.device %x : (!ts.tensor<f32, [2, 3], device = "cpu">) -> !ts.device
  %unknown = aten.dim %u : (!ts.tensor) -> !ts.int
  func.return %total, %size, %rank, %dtype, %device, %unknown : !ts.int, !ts.int, !ts.int, !ts.int, !ts.device, !ts.int
}

// -----

// `is None` on values whose type decides; an Optional stays a question.
// CHECK-LABEL: func.func @is_none
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %[[F:.*]] = prim.Constant false : !ts.bool
// CHECK-NEXT:    %[[T:.*]] = prim.Constant true : !ts.bool
// CHECK-NEXT:    %[[Q:.*]] = aten.__is__ %o, %none
// CHECK-NEXT:    func.return %[[F]], %[[T]], %[[Q]]
func.func @is_none(%x : !ts.tensor, %o : !ts.optional<!ts.tensor>) -> (!ts.bool, !ts.bool, !ts.bool) {
  %none = prim.Constant : !ts.none
  %a = aten.__is__ %x, %none : (!ts.tensor, !ts.none) -> !ts.bool
  %b = aten.__isnot__ %x, %none : (!ts.tensor, !ts.none) -> !ts.bool
  %c = aten.__is__ %o, %none : (!ts.optional<!ts.tensor>, !ts.none) -> !ts.bool
  func.return %a, %b, %c : !ts.bool, !ts.bool, !ts.bool
}

// -----

// List literals nothing writes: len, constant indexing and unpacking see through them;
// a list that is appended to does not.
// CHECK-LABEL: func.func @list_idioms
// CHECK:         %[[LEN:.*]] = prim.Constant 3 : !ts.int
// CHECK:         %grown = aten.append %m, %a
// CHECK-NEXT:    %n = aten.len %m
// CHECK-NEXT:    func.return %[[LEN]], %c, %a, %b, %c, %n
func.func @list_idioms(%a : !ts.int, %b : !ts.int, %c : !ts.int) -> (!ts.int, !ts.int, !ts.int, !ts.int, !ts.int, !ts.int) {
  %last = prim.Constant -1 : !ts.int
  %l = prim.ListConstruct %a, %b, %c : (!ts.int, !ts.int, !ts.int) -> !ts.list<!ts.int>
  %len = aten.len %l : (!ts.list<!ts.int>) -> !ts.int
  %item = aten.__getitem__ %l, %last : (!ts.list<!ts.int>, !ts.int) -> !ts.int
  %p, %q, %r = prim.ListUnpack %l : !ts.list<!ts.int> -> !ts.int, !ts.int, !ts.int
  %m = prim.ListConstruct %a : (!ts.int) -> !ts.list<!ts.int>
  %grown = aten.append %m, %a : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
  %n = aten.len %m : (!ts.list<!ts.int>) -> !ts.int
  func.return %len, %item, %p, %q, %r, %n : !ts.int, !ts.int, !ts.int, !ts.int, !ts.int, !ts.int
}

// -----

// `aten.chunk` unpacked at once is a `prim.ConstantChunk`; tuple idioms forward their
// elements; `t(t(x))` is x. A cast or a conversion to the type a value has is the
// value, but not where the value's narrower type would reach a return.
// CHECK-LABEL: func.func @idioms
// CHECK-NEXT:    %two = prim.Constant 2 : !ts.int
// CHECK-NEXT:    %zero = prim.Constant 0 : !ts.int
// CHECK:         %p, %q = prim.ConstantChunk[chunks = 2, dim = 0] %x : !ts.tensor<f32, [4]> -> !ts.tensor, !ts.tensor
// CHECK:         %[[CAST:.*]] = prim.unchecked_cast %x
// CHECK-NEXT:    %[[TO:.*]] = aten.to %x
// CHECK-NEXT:    %sum = aten.add %x, %x, %two
// CHECK-NEXT:    func.return %p, %q, %x, %x, %[[CAST]], %[[TO]], %sum
func.func @idioms(%x : !ts.tensor<f32, [4]>) -> (!ts.tensor, !ts.tensor, !ts.tensor<f32, [4]>, !ts.tensor<f32, [4]>, !ts.tensor, !ts.tensor, !ts.tensor) {
  %two = prim.Constant 2 : !ts.int
  %zero = prim.Constant 0 : !ts.int
  %false = prim.Constant false : !ts.bool
  %none = prim.Constant : !ts.none
  %float = prim.Constant 6 : !ts.int
  %chunks = aten.chunk %x, %two, %zero : (!ts.tensor<f32, [4]>, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  %p, %q = prim.ListUnpack %chunks : !ts.list<!ts.tensor> -> !ts.tensor, !ts.tensor
  %t = prim.TupleConstruct %x, %p : (!ts.tensor<f32, [4]>, !ts.tensor) -> !ts.tuple<!ts.tensor<f32, [4]>, !ts.tensor>
  %first = prim.TupleIndex %t[%zero] : !ts.tuple<!ts.tensor<f32, [4]>, !ts.tensor> -> !ts.tensor<f32, [4]>
  %tt = aten.t %x : (!ts.tensor<f32, [4]>) -> !ts.tensor
  %ttt = aten.t %tt : (!ts.tensor) -> !ts.tensor<f32, [4]>
  %cast = prim.unchecked_cast %x : !ts.tensor<f32, [4]> -> !ts.tensor
  %to = aten.to %x, %float, %false, %false, %none : (!ts.tensor<f32, [4]>, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor
  %to2 = aten.to %x, %float, %false, %false, %none : (!ts.tensor<f32, [4]>, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor
  %cast2 = prim.unchecked_cast %x : !ts.tensor<f32, [4]> -> !ts.tensor
  %sum = aten.add %to2, %cast2, %two : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %p, %q, %first, %ttt, %cast, %to, %sum : !ts.tensor, !ts.tensor, !ts.tensor<f32, [4]>, !ts.tensor<f32, [4]>, !ts.tensor, !ts.tensor, !ts.tensor
}

// -----

// An If output that is `true` from the then-branch and `false` from the else-branch
// is the condition (`c and True`).
// CHECK-LABEL: func.func @condition_output
// CHECK:         func.return %c
func.func @condition_output(%c : !ts.bool) -> !ts.bool {
  %r = prim.If %c -> (!ts.bool) {
    %t = prim.Constant true : !ts.bool
    prim.Yield %t : !ts.bool
  } else {
    %f = prim.Constant false : !ts.bool
    prim.Yield %f : !ts.bool
  }
  func.return %r : !ts.bool
}

// -----

// The If is offered before the ops of its branches: only after `None is None` in the
// then-branch has become `true` does its output turn out to be the condition.
// CHECK-LABEL: func.func @condition_output_after_a_fold_inside
// CHECK:           %t = prim.Constant true : !ts.bool
// CHECK-NEXT:      prim.Yield %t
// CHECK:         func.return %c : !ts.bool
func.func @condition_output_after_a_fold_inside(%c : !ts.bool) -> !ts.bool {
  %r = prim.If %c -> (!ts.bool) {
    %none = prim.Constant : !ts.none
    %t = aten.__is__ %none, %none : (!ts.none, !ts.none) -> !ts.bool
    prim.Yield %t : !ts.bool
  } else {
    %f = prim.Constant false : !ts.bool
    prim.Yield %f : !ts.bool
  }
  func.return %r : !ts.bool
}

// -----

// The 1 reaches the product through a tuple: forwarding the unpack makes `a * 1`.
// CHECK-LABEL: func.func @identity_after_tuple_forwarding
// CHECK-NEXT:    %one = prim.Constant 1 : !ts.int
// CHECK-NEXT:    func.return %x : !ts.int
func.func @identity_after_tuple_forwarding(%x : !ts.int) -> !ts.int {
  %one = prim.Constant 1 : !ts.int
  %t = prim.TupleConstruct %x, %one : (!ts.int, !ts.int) -> !ts.tuple<!ts.int, !ts.int>
  %a, %k = prim.TupleUnpack %t : !ts.tuple<!ts.int, !ts.int> -> !ts.int, !ts.int
  %y = aten.mul %a, %k : (!ts.int, !ts.int) -> !ts.int
  func.return %y : !ts.int
}

// -----

// The chunk list has a second use, in a tuple, when the unpack is offered; forwarding
// the tuple removes that use but touches neither the unpack nor its operand's
// producer, so only a further sweep finds the single-use chunk.
// CHECK-LABEL: func.func @chunk_after_its_other_use_goes
// CHECK-NEXT:    %two = prim.Constant 2
// CHECK-NEXT:    %zero = prim.Constant 0
// CHECK-NEXT:    %p, %q = prim.ConstantChunk[chunks = 2, dim = 0] %x
// CHECK-NEXT:    func.return %p, %q, %x
func.func @chunk_after_its_other_use_goes(%x : !ts.tensor<f32, [4]>) -> (!ts.tensor, !ts.tensor, !ts.tensor<f32, [4]>) {
  %two = prim.Constant 2 : !ts.int
  %zero = prim.Constant 0 : !ts.int
  %chunks = aten.chunk %x, %two, %zero : (!ts.tensor<f32, [4]>, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  %p, %q = prim.ListUnpack %chunks : !ts.list<!ts.tensor> -> !ts.tensor, !ts.tensor
  %t = prim.TupleConstruct %chunks, %x : (!ts.list<!ts.tensor>, !ts.tensor<f32, [4]>) -> !ts.tuple<!ts.list<!ts.tensor>, !ts.tensor<f32, [4]>>
  %l, %y = prim.TupleUnpack %t : !ts.tuple<!ts.list<!ts.tensor>, !ts.tensor<f32, [4]>> -> !ts.list<!ts.tensor>, !ts.tensor<f32, [4]>
  func.return %p, %q, %y : !ts.tensor, !ts.tensor, !ts.tensor<f32, [4]>
}
