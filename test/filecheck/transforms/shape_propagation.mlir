// RUN: ts-opt %s --split-input-file -p shape-propagation | filecheck %s

// Elementwise ops broadcast and promote: a Long tensor and a float scalar give the
// default float dtype, a dimensioned Float with a zero-dim Double stays Float but
// with a dimensioned one becomes Double, and with a Double of unknown rank (either
// answer) the dtype stays unknown. Comparisons give Bool and no gradient.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME:    -> (!ts.tensor<f32, [4, 3]>, !ts.tensor<f32, [3]>, !ts.tensor<i1, [4, 3], requires_grad = false>, !ts.tensor<f32, [4, 1]>, !ts.tensor<f64, [4, 1]>, !ts.tensor)
// CHECK:         %a = aten.add %x, %y, %one : {{.*}} -> !ts.tensor<f32, [4, 3]>
// CHECK-NEXT:    %b = aten.mul %l, %half : {{.*}} -> !ts.tensor<f32, [3]>
// CHECK-NEXT:    %c = aten.gt %a, %half : {{.*}} -> !ts.tensor<i1, [4, 3], requires_grad = false>
// CHECK-NEXT:    %d = aten.sub %x, %z, %one : {{.*}} -> !ts.tensor<f32, [4, 1]>
// CHECK-NEXT:    %e = aten.sub %x, %u, %one : {{.*}} -> !ts.tensor<f64, [4, 1]>
// CHECK-NEXT:    %f = aten.sub %x, %w, %one : {{.*}} -> !ts.tensor{{$}}
func.func @pointwise(%x : !ts.tensor<f32, [4, 1]>, %y : !ts.tensor<f32, [3]>, %l : !ts.tensor<i64, [3]>, %z : !ts.tensor<f64, []>, %u : !ts.tensor<f64, [1]>, %w : !ts.tensor<f64>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %one = prim.Constant 1 : !ts.int
  %half = prim.Constant 0.5 : !ts.float
  %a = aten.add %x, %y, %one : (!ts.tensor<f32, [4, 1]>, !ts.tensor<f32, [3]>, !ts.int) -> !ts.tensor
  %b = aten.mul %l, %half : (!ts.tensor<i64, [3]>, !ts.float) -> !ts.tensor
  %c = aten.gt %a, %half : (!ts.tensor, !ts.float) -> !ts.tensor
  %d = aten.sub %x, %z, %one : (!ts.tensor<f32, [4, 1]>, !ts.tensor<f64, []>, !ts.int) -> !ts.tensor
  %e = aten.sub %x, %u, %one : (!ts.tensor<f32, [4, 1]>, !ts.tensor<f64, [1]>, !ts.int) -> !ts.tensor
  %f = aten.sub %x, %w, %one : (!ts.tensor<f32, [4, 1]>, !ts.tensor<f64>, !ts.int) -> !ts.tensor
  func.return %a, %b, %c, %d, %e, %f : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}

// -----

// Reductions drop (or keep) the reduced dims; integral sums accumulate in Long;
// max over a dim gives values and Long indices.
// CHECK-LABEL: func.func @reductions
// CHECK:         %all = aten.sum %i, %none : {{.*}} -> !ts.tensor<i64, [], requires_grad = false>
// CHECK-NEXT:    %rows = aten.mean %x, %dims, %false, %none : {{.*}} -> !ts.tensor<f32, [2, 4]>
// CHECK-NEXT:    %kept = aten.mean %x, %dims, %true, %none : {{.*}} -> !ts.tensor<f32, [2, 1, 4]>
// CHECK-NEXT:    %v, %ix = aten.max %x, %last, %false : {{.*}} -> (!ts.tensor<f32, [2, 3]>, !ts.tensor<i64, [2, 3], requires_grad = false>)
func.func @reductions(%x : !ts.tensor<f32, [2, 3, 4]>, %i : !ts.tensor<i32, [5]>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %none = prim.Constant : !ts.none
  %false = prim.Constant false : !ts.bool
  %true = prim.Constant true : !ts.bool
  %one = prim.Constant 1 : !ts.int
  %last = prim.Constant -1 : !ts.int
  %dims = prim.ListConstruct %one : (!ts.int) -> !ts.list<!ts.int>
  %all = aten.sum %i, %none : (!ts.tensor<i32, [5]>, !ts.none) -> !ts.tensor
  %rows = aten.mean %x, %dims, %false, %none : (!ts.tensor<f32, [2, 3, 4]>, !ts.list<!ts.int>, !ts.bool, !ts.none) -> !ts.tensor
  %kept = aten.mean %x, %dims, %true, %none : (!ts.tensor<f32, [2, 3, 4]>, !ts.list<!ts.int>, !ts.bool, !ts.none) -> !ts.tensor
  %v, %ix = aten.max %x, %last, %false : (!ts.tensor<f32, [2, 3, 4]>, !ts.int, !ts.bool) -> (!ts.tensor, !ts.tensor)
  func.return %all, %rows, %kept, %v, %ix : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}

// -----

// View and shape ops: view infers its -1, transpose/permute reorder, unsqueeze and
// squeeze add and drop unit dims, cat adds up along its dim and stack adds one.
// CHECK-LABEL: func.func @shapes
// CHECK:         %v = aten.view %x, %shape : {{.*}} -> !ts.tensor<f32, [6, 4]>
// CHECK-NEXT:    %t = aten.transpose %x, %zero, %two : {{.*}} -> !ts.tensor<f32, [4, 3, 2]>
// CHECK-NEXT:    %p = aten.permute %x, %order : {{.*}} -> !ts.tensor<f32, [3, 4, 2]>
// CHECK-NEXT:    %u = aten.unsqueeze %x, %zero : {{.*}} -> !ts.tensor<f32, [1, 2, 3, 4]>
// CHECK-NEXT:    %s = aten.squeeze %u, %zero : {{.*}} -> !ts.tensor<f32, [2, 3, 4]>
// CHECK-NEXT:    %pair = prim.ListConstruct %x, %x
// CHECK-NEXT:    %c = aten.cat %pair, %two : {{.*}} -> !ts.tensor<f32, [2, 3, 8]>
// CHECK-NEXT:    %k = aten.stack %pair, %zero : {{.*}} -> !ts.tensor<f32, [2, 2, 3, 4]>
func.func @shapes(%x : !ts.tensor<f32, [2, 3, 4]>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %zero = prim.Constant 0 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %minus = prim.Constant -1 : !ts.int
  %four = prim.Constant 4 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %shape = prim.ListConstruct %minus, %four : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %order = prim.ListConstruct %one, %two, %zero : (!ts.int, !ts.int, !ts.int) -> !ts.list<!ts.int>
  %v = aten.view %x, %shape : (!ts.tensor<f32, [2, 3, 4]>, !ts.list<!ts.int>) -> !ts.tensor
  %t = aten.transpose %x, %zero, %two : (!ts.tensor<f32, [2, 3, 4]>, !ts.int, !ts.int) -> !ts.tensor
  %p = aten.permute %x, %order : (!ts.tensor<f32, [2, 3, 4]>, !ts.list<!ts.int>) -> !ts.tensor
  %u = aten.unsqueeze %x, %zero : (!ts.tensor<f32, [2, 3, 4]>, !ts.int) -> !ts.tensor
  %s = aten.squeeze %u, %zero : (!ts.tensor, !ts.int) -> !ts.tensor
  %pair = prim.ListConstruct %x, %x : (!ts.tensor<f32, [2, 3, 4]>, !ts.tensor<f32, [2, 3, 4]>) -> !ts.list<!ts.tensor>
  %c = aten.cat %pair, %two : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  %k = aten.stack %pair, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  func.return %v, %t, %p, %s, %c, %k : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}

// -----

// A list that may be mutated gives its users nothing: `append` writes it.
// CHECK-LABEL: func.func @mutated_list
// CHECK:         %v = aten.view %x, %shape : {{.*}} -> !ts.tensor<f32>
func.func @mutated_list(%x : !ts.tensor<f32, [6]>) -> !ts.tensor {
  %two = prim.Constant 2 : !ts.int
  %shape = prim.ListConstruct %two : (!ts.int) -> !ts.list<!ts.int>
  %grown = aten.append %shape, %two : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
  %v = aten.view %x, %shape : (!ts.tensor<f32, [6]>, !ts.list<!ts.int>) -> !ts.tensor
  func.return %v : !ts.tensor
}

// -----

// Matrix products, linear, and factories with dtype (7 is Double) and device.
// CHECK-LABEL: func.func @matmul_and_factories
// CHECK:         %mm = aten.mm %a, %b : {{.*}} -> !ts.tensor<f32, [2, 5]>
// CHECK-NEXT:    %bmm = aten.matmul %batch, %b : {{.*}} -> !ts.tensor<f32, [7, 2, 5]>
// CHECK-NEXT:    %lin = aten.linear %a, %w, %none : {{.*}} -> !ts.tensor<f32, [2, 6]>
// CHECK-NEXT:    %sizes = prim.ListConstruct %two, %two
// CHECK-NEXT:    %z = aten.zeros %sizes, %double, %none, %none, %none : {{.*}} -> !ts.tensor<f64, [2, 2], device = "cpu", requires_grad = false>
func.func @matmul_and_factories(%a : !ts.tensor<f32, [2, 3]>, %b : !ts.tensor<f32, [3, 5]>, %batch : !ts.tensor<f32, [7, 2, 3]>, %w : !ts.tensor<f32, [6, 3]>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %none = prim.Constant : !ts.none
  %two = prim.Constant 2 : !ts.int
  %double = prim.Constant 7 : !ts.int
  %mm = aten.mm %a, %b : (!ts.tensor<f32, [2, 3]>, !ts.tensor<f32, [3, 5]>) -> !ts.tensor
  %bmm = aten.matmul %batch, %b : (!ts.tensor<f32, [7, 2, 3]>, !ts.tensor<f32, [3, 5]>) -> !ts.tensor
  %lin = aten.linear %a, %w, %none : (!ts.tensor<f32, [2, 3]>, !ts.tensor<f32, [6, 3]>, !ts.none) -> !ts.tensor
  %sizes = prim.ListConstruct %two, %two : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %z = aten.zeros %sizes, %double, %none, %none, %none : (!ts.list<!ts.int>, !ts.int, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  func.return %mm, %bmm, %lin, %z : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}

// -----

// An If's outputs unify its branches (sizes that differ become unknown); an op
// without a rule keeps its declared type, and so does what depends on it.
// CHECK-LABEL: func.func @control_and_unknown
// CHECK:         %r = prim.If %c -> (!ts.tensor<f32, [?, 3]>) {
// CHECK:         %q = aten.my_custom_op %x : (!ts.tensor<f32, [2, 3]>) -> !ts.tensor
// CHECK-NEXT:    %n = aten.neg %q : (!ts.tensor) -> !ts.tensor
func.func @control_and_unknown(%c : !ts.bool, %x : !ts.tensor<f32, [2, 3]>, %y : !ts.tensor<f32, [5, 3]>) -> (!ts.tensor, !ts.tensor) {
  %r = prim.If %c -> (!ts.tensor) {
    prim.Yield %x : !ts.tensor<f32, [2, 3]>
  } else {
    prim.Yield %y : !ts.tensor<f32, [5, 3]>
  }
  %q = aten.my_custom_op %x : (!ts.tensor<f32, [2, 3]>) -> !ts.tensor
  %n = aten.neg %q : (!ts.tensor) -> !ts.tensor
  func.return %r, %n : !ts.tensor, !ts.tensor
}

// -----

// Loop-carried values reach a fixpoint: a type each trip keeps stays known, a dim
// that grows on every trip becomes unknown.
// CHECK-LABEL: func.func @loops
// CHECK:         %same = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor<f32, [2, 2]>) -> (!ts.tensor<f32, [2, 2]>) {
// CHECK:         %grown = prim.Loop %n, %true iter(%j) carried(%b = %x : !ts.tensor<f32, [2, 2]>) -> (!ts.tensor<f32, [?, 2]>) {
// CHECK-NEXT:      %l = prim.ListConstruct %b, %b : (!ts.tensor<f32, [?, 2]>, !ts.tensor<f32, [?, 2]>) -> !ts.list<!ts.tensor>
func.func @loops(%x : !ts.tensor<f32, [2, 2]>, %n : !ts.int) -> (!ts.tensor, !ts.tensor) {
  %true = prim.Constant true : !ts.bool
  %zero = prim.Constant 0 : !ts.int
  %same = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor<f32, [2, 2]>) -> (!ts.tensor) {
    %m = aten.mul %a, %a : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %true, %m : !ts.bool, !ts.tensor
  }
  %grown = prim.Loop %n, %true iter(%j) carried(%b = %x : !ts.tensor<f32, [2, 2]>) -> (!ts.tensor) {
    %l = prim.ListConstruct %b, %b : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
    %k = aten.cat %l, %zero : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
    prim.Yield %true, %k : !ts.bool, !ts.tensor
  }
  func.return %same, %grown : !ts.tensor, !ts.tensor
}

// -----

// Tuples carry their elements' types to their unpacks.
// CHECK-LABEL: func.func @tuples
// CHECK:         %t = prim.TupleConstruct %e, %x : (!ts.tensor<f32, [3]>, !ts.tensor<f32, [3]>) -> !ts.tuple<!ts.tensor<f32, [3]>, !ts.tensor<f32, [3]>>
// CHECK-NEXT:    %p, %q = prim.TupleUnpack %t : !ts.tuple<!ts.tensor<f32, [3]>, !ts.tensor<f32, [3]>> -> !ts.tensor<f32, [3]>, !ts.tensor<f32, [3]>
func.func @tuples(%x : !ts.tensor<f32, [3]>) -> !ts.tensor {
  %e = aten.exp %x : (!ts.tensor<f32, [3]>) -> !ts.tensor
  %t = prim.TupleConstruct %e, %x : (!ts.tensor, !ts.tensor<f32, [3]>) -> !ts.tuple<!ts.tensor, !ts.tensor>
  %p, %q = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.tensor> -> !ts.tensor, !ts.tensor
  func.return %p : !ts.tensor
}

// -----

// A graph nothing calls gets its refined result types; a called graph keeps its
// declared signature, refined values cast back at its boundary and at calls.
// CHECK-LABEL: func.func @caller(%x: !ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]>
// CHECK-NEXT:    %e = aten.exp %x : (!ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]>
// CHECK-NEXT:    %[[C:.*]] = prim.unchecked_cast %e : !ts.tensor<f32, [3]> -> !ts.tensor
// CHECK-NEXT:    %r = func.call @callee(%[[C]]) : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %n = aten.neg %e : (!ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]>
// CHECK-NEXT:    func.return %n : !ts.tensor<f32, [3]>
// CHECK-LABEL: func.func @callee(%y: !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %s = aten.sin %y : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    func.return %s : !ts.tensor
func.func @caller(%x : !ts.tensor<f32, [3]>) -> !ts.tensor {
  %e = aten.exp %x : (!ts.tensor<f32, [3]>) -> !ts.tensor
  %r = func.call @callee(%e) : (!ts.tensor) -> !ts.tensor
  %n = aten.neg %e : (!ts.tensor) -> !ts.tensor
  func.return %n : !ts.tensor
}

func.func @callee(%y : !ts.tensor) -> !ts.tensor {
  %s = aten.sin %y : (!ts.tensor) -> !ts.tensor
  func.return %s : !ts.tensor
}

// -----

// Convolutions and poolings slide windows over the spatial dims (the sizes PyTorch
// computes: stride, padding, dilation, ceil_mode, `same` padding).
// CHECK-LABEL: func.func @windows
// CHECK:         %conv = aten.conv2d {{.*}} -> !ts.tensor<f32, [2, 5, 5, 5]>
// CHECK-NEXT:    %same = aten.conv2d {{.*}} -> !ts.tensor<f32, [2, 5, 10, 9]>
// CHECK-NEXT:    %ceil = aten.max_pool2d {{.*}} -> !ts.tensor<f32, [2, 3, 4, 3]>
// CHECK-NEXT:    %floor = aten.max_pool2d {{.*}} -> !ts.tensor<f32, [2, 3, 3, 3]>
// CHECK-NEXT:    %avg = aten.avg_pool2d {{.*}} -> !ts.tensor<f32, [2, 3, 6, 9]>
// CHECK-NEXT:    %adaptive = aten.adaptive_avg_pool2d {{.*}} -> !ts.tensor<f32, [2, 3, 4, 4]>
func.func @windows(%x : !ts.tensor<f32, [2, 3, 10, 9]>, %w : !ts.tensor<f32, [5, 3, 3, 2]>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %none = prim.Constant : !ts.none
  %one = prim.Constant 1 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %three = prim.Constant 3 : !ts.int
  %four = prim.Constant 4 : !ts.int
  %true = prim.Constant true : !ts.bool
  %false = prim.Constant false : !ts.bool
  %same_mode = prim.Constant "same" : !ts.str
  %twos = prim.ListConstruct %two, %two : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %ones = prim.ListConstruct %one, %one : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %threes = prim.ListConstruct %three, %three : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %empty = prim.ListConstruct : () -> !ts.list<!ts.int>
  %zeros = prim.Constant [0, 0] : !ts.list<!ts.int>
  %kernel = prim.ListConstruct %two, %three : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %stride = prim.ListConstruct %two, %one : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %fours = prim.ListConstruct %four, %four : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %conv = aten.conv2d %x, %w, %none, %twos, %ones, %ones, %one : (!ts.tensor<f32, [2, 3, 10, 9]>, !ts.tensor<f32, [5, 3, 3, 2]>, !ts.none, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.int) -> !ts.tensor
  %same = aten.conv2d %x, %w, %none, %ones, %same_mode, %ones, %one : (!ts.tensor<f32, [2, 3, 10, 9]>, !ts.tensor<f32, [5, 3, 3, 2]>, !ts.none, !ts.list<!ts.int>, !ts.str, !ts.list<!ts.int>, !ts.int) -> !ts.tensor
  %ceil = aten.max_pool2d %x, %threes, %empty, %zeros, %ones, %true : (!ts.tensor<f32, [2, 3, 10, 9]>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.bool) -> !ts.tensor
  %floor = aten.max_pool2d %x, %threes, %empty, %zeros, %ones, %false : (!ts.tensor<f32, [2, 3, 10, 9]>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.bool) -> !ts.tensor
  %avg = aten.avg_pool2d %x, %kernel, %stride, %ones, %false, %true, %none : (!ts.tensor<f32, [2, 3, 10, 9]>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor
  %adaptive = aten.adaptive_avg_pool2d %x, %fours : (!ts.tensor<f32, [2, 3, 10, 9]>, !ts.list<!ts.int>) -> !ts.tensor
  func.return %conv, %same, %ceil, %floor, %avg, %adaptive : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}

// -----

// atan2 and copysign compute integers in the default float dtype; square, which is
// pow(x, 2), computes bool in Long; fmax keeps Long.
// CHECK-LABEL: func.func @integral_dtypes
// CHECK:         %a = aten.atan2 %l, %l : {{.*}} -> !ts.tensor<f32, [3]>
// CHECK-NEXT:    %c = aten.copysign %l, %b : {{.*}} -> !ts.tensor<f32, [3]>
// CHECK-NEXT:    %s = aten.square %b : {{.*}} -> !ts.tensor<i64, [3], requires_grad = false>
// CHECK-NEXT:    %m = aten.fmax %l, %b : {{.*}} -> !ts.tensor<i64, [3], requires_grad = false>
func.func @integral_dtypes(%l : !ts.tensor<i64, [3]>, %b : !ts.tensor<i1, [3]>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor) {
  %a = aten.atan2 %l, %l : (!ts.tensor<i64, [3]>, !ts.tensor<i64, [3]>) -> !ts.tensor
  %c = aten.copysign %l, %b : (!ts.tensor<i64, [3]>, !ts.tensor<i1, [3]>) -> !ts.tensor
  %s = aten.square %b : (!ts.tensor<i1, [3]>) -> !ts.tensor
  %m = aten.fmax %l, %b : (!ts.tensor<i64, [3]>, !ts.tensor<i1, [3]>) -> !ts.tensor
  func.return %a, %c, %s, %m : !ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor
}
