// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP
// RUN: ts-opt %s | filecheck %s

// Ops of the schema table: one op per operator name, whatever the overload; operands
// are every argument in schema order, defaults and keyword-only ones included.

func.func @pointwise(%x : !ts.tensor, %y : !ts.tensor<f32, [2, 3]>, %one : !ts.int, %two : !ts.float) -> !ts.tensor {
  %a = aten.add %x, %y, %one : (!ts.tensor, !ts.tensor<f32, [2, 3]>, !ts.int) -> !ts.tensor
  %b = aten.add %a, %two, %one : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
  %c = aten.sub %b, %x, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %d = aten.mul %c, %c : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %e = aten.div %d, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %f = aten.neg %e : (!ts.tensor) -> !ts.tensor
  %g = aten.relu %f : (!ts.tensor) -> !ts.tensor
  %h = aten.sigmoid %g : (!ts.tensor) -> !ts.tensor
  %i = aten.tanh %h : (!ts.tensor) -> !ts.tensor
  %j = aten.exp %i : (!ts.tensor) -> !ts.tensor
  %k = aten.pow %j, %two : (!ts.tensor, !ts.float) -> !ts.tensor
  %l = aten.gt %k, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %m = aten.lt %k, %one : (!ts.tensor, !ts.int) -> !ts.tensor
  %n = aten.where %l, %k, %x : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tensor
  %o = aten.masked_fill %n, %m, %two : (!ts.tensor, !ts.tensor, !ts.float) -> !ts.tensor
  %p = aten.min %o, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  func.return %p : !ts.tensor
}

// CHECK-LABEL: func.func @pointwise
// CHECK-NEXT:    %a = aten.add %x, %y, %one : (!ts.tensor, !ts.tensor<f32, [2, 3]>, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %b = aten.add %a, %two, %one : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %c = aten.sub %b, %x, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %d = aten.mul %c, %c : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %e = aten.div %d, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %f = aten.neg %e : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %g = aten.relu %f : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %h = aten.sigmoid %g : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %i = aten.tanh %h : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %j = aten.exp %i : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %k = aten.pow %j, %two : (!ts.tensor, !ts.float) -> !ts.tensor
// CHECK-NEXT:    %l = aten.gt %k, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %m = aten.lt %k, %one : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %n = aten.where %l, %k, %x : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %o = aten.masked_fill %n, %m, %two : (!ts.tensor, !ts.tensor, !ts.float) -> !ts.tensor
// CHECK-NEXT:    %p = aten.min %o, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    func.return %p : !ts.tensor

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "pointwise"
// CHECK-GENERIC:         %a = "aten.add"(%x, %y, %one) : (!ts.tensor, !ts.tensor<f32, [2, 3]>, !ts.int) -> !ts.tensor

func.func @nn(%x : !ts.tensor, %w : !ts.tensor, %bias : !ts.optional<!ts.tensor>, %none : !ts.none,
              %dim : !ts.int, %eps : !ts.float, %flag : !ts.bool, %ints : !ts.list<!ts.int>) -> !ts.tensor {
  %a = aten.matmul %x, %w : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %b = aten.mm %a, %w : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %c = aten.addmm %x, %a, %b, %dim, %dim : (!ts.tensor, !ts.tensor, !ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %d = aten.linear %c, %w, %bias : (!ts.tensor, !ts.tensor, !ts.optional<!ts.tensor>) -> !ts.tensor
  %e = aten.softmax %d, %dim, %none : (!ts.tensor, !ts.int, !ts.none) -> !ts.tensor
  %f = aten.log_softmax %e, %dim, %none : (!ts.tensor, !ts.int, !ts.none) -> !ts.tensor
  %g = aten.conv2d %f, %w, %bias, %ints, %ints, %ints, %dim : (!ts.tensor, !ts.tensor, !ts.optional<!ts.tensor>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.int) -> !ts.tensor
  %h = aten.max_pool2d %g, %ints, %ints, %ints, %ints, %flag : (!ts.tensor, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.bool) -> !ts.tensor
  %i = aten.batch_norm %h, %bias, %bias, %none, %none, %flag, %eps, %eps, %flag : (!ts.tensor, !ts.optional<!ts.tensor>, !ts.optional<!ts.tensor>, !ts.none, !ts.none, !ts.bool, !ts.float, !ts.float, !ts.bool) -> !ts.tensor
  %j = aten.layer_norm %i, %ints, %none, %none, %eps, %flag : (!ts.tensor, !ts.list<!ts.int>, !ts.none, !ts.none, !ts.float, !ts.bool) -> !ts.tensor
  %k = aten.embedding %w, %j, %dim, %flag, %flag : (!ts.tensor, !ts.tensor, !ts.int, !ts.bool, !ts.bool) -> !ts.tensor
  %l = aten.dropout %k, %eps, %flag : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  %m = aten.sum %l, %ints, %flag, %none : (!ts.tensor, !ts.list<!ts.int>, !ts.bool, !ts.none) -> !ts.tensor
  %n = aten.mean %m, %none, %flag, %none : (!ts.tensor, !ts.none, !ts.bool, !ts.none) -> !ts.tensor
  %o = aten.argmax %n, %none, %flag : (!ts.tensor, !ts.none, !ts.bool) -> !ts.tensor
  func.return %o : !ts.tensor
}

// CHECK-LABEL: func.func @nn
// CHECK-NEXT:    %a = aten.matmul %x, %w : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %b = aten.mm %a, %w : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %c = aten.addmm %x, %a, %b, %dim, %dim : (!ts.tensor, !ts.tensor, !ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %d = aten.linear %c, %w, %bias : (!ts.tensor, !ts.tensor, !ts.optional<!ts.tensor>) -> !ts.tensor
// CHECK-NEXT:    %e = aten.softmax %d, %dim, %none : (!ts.tensor, !ts.int, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %f = aten.log_softmax %e, %dim, %none : (!ts.tensor, !ts.int, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %g = aten.conv2d %f, %w, %bias, %ints, %ints, %ints, %dim : (!ts.tensor, !ts.tensor, !ts.optional<!ts.tensor>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %h = aten.max_pool2d %g, %ints, %ints, %ints, %ints, %flag : (!ts.tensor, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.list<!ts.int>, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %i = aten.batch_norm %h, %bias, %bias, %none, %none, %flag, %eps, %eps, %flag : (!ts.tensor, !ts.optional<!ts.tensor>, !ts.optional<!ts.tensor>, !ts.none, !ts.none, !ts.bool, !ts.float, !ts.float, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %j = aten.layer_norm %i, %ints, %none, %none, %eps, %flag : (!ts.tensor, !ts.list<!ts.int>, !ts.none, !ts.none, !ts.float, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %k = aten.embedding %w, %j, %dim, %flag, %flag : (!ts.tensor, !ts.tensor, !ts.int, !ts.bool, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %l = aten.dropout %k, %eps, %flag : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %m = aten.sum %l, %ints, %flag, %none : (!ts.tensor, !ts.list<!ts.int>, !ts.bool, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %n = aten.mean %m, %none, %flag, %none : (!ts.tensor, !ts.none, !ts.bool, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %o = aten.argmax %n, %none, %flag : (!ts.tensor, !ts.none, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    func.return %o : !ts.tensor

func.func @views(%x : !ts.tensor, %dim : !ts.int, %ints : !ts.list<!ts.int>, %none : !ts.none, %flag : !ts.bool) -> !ts.list<!ts.tensor> {
  %a = aten.view %x, %ints : (!ts.tensor, !ts.list<!ts.int>) -> !ts.tensor
  %b = aten.reshape %a, %ints : (!ts.tensor, !ts.list<!ts.int>) -> !ts.tensor
  %c = aten.permute %b, %ints : (!ts.tensor, !ts.list<!ts.int>) -> !ts.tensor
  %d = aten.transpose %c, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %e = aten.t %d : (!ts.tensor) -> !ts.tensor
  %f = aten.unsqueeze %e, %dim : (!ts.tensor, !ts.int) -> !ts.tensor
  %g = aten.squeeze %f, %dim : (!ts.tensor, !ts.int) -> !ts.tensor
  %h = aten.flatten %g, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %i = aten.slice %h, %dim, %none, %none, %dim : (!ts.tensor, !ts.int, !ts.none, !ts.none, !ts.int) -> !ts.tensor
  %j = aten.select %i, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %k = aten.contiguous %j, %dim : (!ts.tensor, !ts.int) -> !ts.tensor
  %l = aten.clone %k, %none : (!ts.tensor, !ts.none) -> !ts.tensor
  %m = aten.to %l, %dim, %flag, %flag, %none : (!ts.tensor, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor
  %n = aten.index_select %m, %dim, %x : (!ts.tensor, !ts.int, !ts.tensor) -> !ts.tensor
  %parts = aten.chunk %n, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  %more = aten.split %n, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  %rows = aten.unbind %n, %dim : (!ts.tensor, !ts.int) -> !ts.list<!ts.tensor>
  %all = aten.cat %parts, %dim : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  %stacked = aten.stack %more, %dim : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  func.return %rows : !ts.list<!ts.tensor>
}

// CHECK-LABEL: func.func @views
// CHECK-NEXT:    %a = aten.view %x, %ints : (!ts.tensor, !ts.list<!ts.int>) -> !ts.tensor
// CHECK-NEXT:    %b = aten.reshape %a, %ints : (!ts.tensor, !ts.list<!ts.int>) -> !ts.tensor
// CHECK-NEXT:    %c = aten.permute %b, %ints : (!ts.tensor, !ts.list<!ts.int>) -> !ts.tensor
// CHECK-NEXT:    %d = aten.transpose %c, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %e = aten.t %d : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %f = aten.unsqueeze %e, %dim : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %g = aten.squeeze %f, %dim : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %h = aten.flatten %g, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %i = aten.slice %h, %dim, %none, %none, %dim : (!ts.tensor, !ts.int, !ts.none, !ts.none, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %j = aten.select %i, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %k = aten.contiguous %j, %dim : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %l = aten.clone %k, %none : (!ts.tensor, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %m = aten.to %l, %dim, %flag, %flag, %none : (!ts.tensor, !ts.int, !ts.bool, !ts.bool, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %n = aten.index_select %m, %dim, %x : (!ts.tensor, !ts.int, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %parts = aten.chunk %n, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %more = aten.split %n, %dim, %dim : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %rows = aten.unbind %n, %dim : (!ts.tensor, !ts.int) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %all = aten.cat %parts, %dim : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %stacked = aten.stack %more, %dim : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %rows : !ts.list<!ts.tensor>

// Several results, mutation, factories and zero-operand / zero-result ops.
func.func @effects(%x : !ts.tensor, %y : !ts.tensor, %dim : !ts.int, %flag : !ts.bool, %ints : !ts.list<!ts.int>,
                   %none : !ts.none, %msg : !ts.str) -> (!ts.tensor, !ts.tensor) {
  %values, %indices = aten.max %x, %dim, %flag : (!ts.tensor, !ts.int, !ts.bool) -> (!ts.tensor, !ts.tensor)
  %sorted, %order = aten.sort %values, %dim, %flag : (!ts.tensor, !ts.int, !ts.bool) -> (!ts.tensor, !ts.tensor)
  %a = aten.mul_ %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %b = aten.copy_ %a, %y, %flag : (!ts.tensor, !ts.tensor, !ts.bool) -> !ts.tensor
  %c = aten.zero_ %b : (!ts.tensor) -> !ts.tensor
  %z = aten.zeros %ints, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %o = aten.ones %ints, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %r = aten.rand %ints, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
  %grad = aten.is_grad_enabled : () -> !ts.bool
  aten.manual_seed %dim : (!ts.int) -> ()
  aten.warn %msg, %dim : (!ts.str, !ts.int) -> ()
  aten._assert_async %c : (!ts.tensor) -> ()
  func.return %sorted, %order : !ts.tensor, !ts.tensor
}

// CHECK-LABEL: func.func @effects
// CHECK-NEXT:    %values, %indices = aten.max %x, %dim, %flag : (!ts.tensor, !ts.int, !ts.bool) -> (!ts.tensor, !ts.tensor)
// CHECK-NEXT:    %sorted, %order = aten.sort %values, %dim, %flag : (!ts.tensor, !ts.int, !ts.bool) -> (!ts.tensor, !ts.tensor)
// CHECK-NEXT:    %a = aten.mul_ %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %b = aten.copy_ %a, %y, %flag : (!ts.tensor, !ts.tensor, !ts.bool) -> !ts.tensor
// CHECK-NEXT:    %c = aten.zero_ %b : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %z = aten.zeros %ints, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %o = aten.ones %ints, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %r = aten.rand %ints, %none, %none, %none, %none : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
// CHECK-NEXT:    %grad = aten.is_grad_enabled : () -> !ts.bool
// CHECK-NEXT:    aten.manual_seed %dim : (!ts.int) -> ()
// CHECK-NEXT:    aten.warn %msg, %dim : (!ts.str, !ts.int) -> ()
// CHECK-NEXT:    aten._assert_async %c : (!ts.tensor) -> ()
// CHECK-NEXT:    func.return %sorted, %order : !ts.tensor, !ts.tensor

// Scalars, strings, lists and dicts: the generic overloads bind type variables.
func.func @containers(%x : !ts.tensor, %i : !ts.int, %f : !ts.float, %flag : !ts.bool, %s : !ts.str,
                      %l : !ts.list<!ts.tensor>, %ints : !ts.list<!ts.int>, %d : !ts.dict<!ts.str, !ts.tensor>) -> !ts.str {
  %n = aten.size %x : (!ts.tensor) -> !ts.list<!ts.int>
  %n0 = aten.size %x, %i : (!ts.tensor, !ts.int) -> !ts.int
  %rank = aten.dim %x : (!ts.tensor) -> !ts.int
  %len = aten.len %l : (!ts.list<!ts.tensor>) -> !ts.int
  %item = aten.__getitem__ %l, %i : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
  %value = aten.__getitem__ %d, %s : (!ts.dict<!ts.str, !ts.tensor>, !ts.str) -> !ts.tensor
  %char = aten.__getitem__ %s, %i : (!ts.str, !ts.int) -> !ts.str
  %l2 = aten.append %l, %value : (!ts.list<!ts.tensor>, !ts.tensor) -> !ts.list<!ts.tensor>
  %copy = aten.list %ints : (!ts.list<!ts.int>) -> !ts.list<!ts.int>
  %twice = aten.mul %copy, %i : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
  %keys = aten.keys %d : (!ts.dict<!ts.str, !ts.tensor>) -> !ts.list<!ts.str>
  %q = aten.floordiv %i, %len : (!ts.int, !ts.int) -> !ts.int
  %sum = aten.add %f, %i : (!ts.float, !ts.int) -> !ts.float
  %both = aten.__and__ %flag, %flag : (!ts.bool, !ts.bool) -> !ts.bool
  %neither = aten.__not__ %both : (!ts.bool) -> !ts.bool
  %as_int = aten.Int %item : (!ts.tensor) -> !ts.int
  %as_float = aten.Float %q : (!ts.int) -> !ts.float
  %text = aten.str %as_float : (!ts.float) -> !ts.str
  %msg = aten.format %s, %text, %x, %ints : (!ts.str, !ts.str, !ts.tensor, !ts.list<!ts.int>) -> !ts.str
  %dtype = prim.dtype %x : (!ts.tensor) -> !ts.int
  %device = prim.device %x : (!ts.tensor) -> !ts.device
  %t = prim.NumToTensor %i : (!ts.int) -> !ts.tensor
  func.return %msg : !ts.str
}

// CHECK-LABEL: func.func @containers
// CHECK-NEXT:    %n = aten.size %x : (!ts.tensor) -> !ts.list<!ts.int>
// CHECK-NEXT:    %n0 = aten.size %x, %i : (!ts.tensor, !ts.int) -> !ts.int
// CHECK-NEXT:    %rank = aten.dim %x : (!ts.tensor) -> !ts.int
// CHECK-NEXT:    %len = aten.len %l : (!ts.list<!ts.tensor>) -> !ts.int
// CHECK-NEXT:    %item = aten.__getitem__ %l, %i : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %value = aten.__getitem__ %d, %s : (!ts.dict<!ts.str, !ts.tensor>, !ts.str) -> !ts.tensor
// CHECK-NEXT:    %char = aten.__getitem__ %s, %i : (!ts.str, !ts.int) -> !ts.str
// CHECK-NEXT:    %l2 = aten.append %l, %value : (!ts.list<!ts.tensor>, !ts.tensor) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %copy = aten.list %ints : (!ts.list<!ts.int>) -> !ts.list<!ts.int>
// CHECK-NEXT:    %twice = aten.mul %copy, %i : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
// CHECK-NEXT:    %keys = aten.keys %d : (!ts.dict<!ts.str, !ts.tensor>) -> !ts.list<!ts.str>
// CHECK-NEXT:    %q = aten.floordiv %i, %len : (!ts.int, !ts.int) -> !ts.int
// CHECK-NEXT:    %sum = aten.add %f, %i : (!ts.float, !ts.int) -> !ts.float
// CHECK-NEXT:    %both = aten.__and__ %flag, %flag : (!ts.bool, !ts.bool) -> !ts.bool
// CHECK-NEXT:    %neither = aten.__not__ %both : (!ts.bool) -> !ts.bool
// CHECK-NEXT:    %as_int = aten.Int %item : (!ts.tensor) -> !ts.int
// CHECK-NEXT:    %as_float = aten.Float %q : (!ts.int) -> !ts.float
// CHECK-NEXT:    %text = aten.str %as_float : (!ts.float) -> !ts.str
// CHECK-NEXT:    %msg = aten.format %s, %text, %x, %ints : (!ts.str, !ts.str, !ts.tensor, !ts.list<!ts.int>) -> !ts.str
// CHECK-NEXT:    %dtype = prim.dtype %x : (!ts.tensor) -> !ts.int
// CHECK-NEXT:    %device = prim.device %x : (!ts.tensor) -> !ts.device
// CHECK-NEXT:    %t = prim.NumToTensor %i : (!ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %msg : !ts.str

// Gradual typing: Any and Optional operands still verify; names outside the table are
// operators too (open aten universe), with any operands and results.
func.func @open(%any : !ts.any, %maybe : !ts.optional<!ts.tensor>, %x : !ts.tensor, %one : !ts.int) -> !ts.tensor {
  %a = aten.add %any, %x, %one : (!ts.any, !ts.tensor, !ts.int) -> !ts.tensor
  %b = aten.mul %maybe, %a : (!ts.optional<!ts.tensor>, !ts.tensor) -> !ts.tensor
  %c = aten.my_custom_op %b, %one : (!ts.tensor, !ts.int) -> !ts.tensor
  %p, %q = aten.my_pair_op : () -> (!ts.int, !ts.tensor)
  aten.my_sink %p, %q : (!ts.int, !ts.tensor) -> ()
  func.return %c : !ts.tensor
}

// CHECK-LABEL: func.func @open
// CHECK-NEXT:    %a = aten.add %any, %x, %one : (!ts.any, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %b = aten.mul %maybe, %a : (!ts.optional<!ts.tensor>, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %c = aten.my_custom_op %b, %one : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %p, %q = aten.my_pair_op : () -> (!ts.int, !ts.tensor)
// CHECK-NEXT:    aten.my_sink %p, %q : (!ts.int, !ts.tensor) -> ()
// CHECK-NEXT:    func.return %c : !ts.tensor

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "open"
// CHECK-GENERIC:         %p, %q = "aten.my_pair_op"() : () -> (!ts.int, !ts.tensor)
// CHECK-GENERIC-NEXT:    "aten.my_sink"(%p, %q) : (!ts.int, !ts.tensor) -> ()

// Custom operators of namespaces PyTorch does not register are open too.
// CHECK-LABEL: func.func @custom_namespaces
// CHECK-NEXT:    %k = torchvision.nms %b, %s, %t : (!ts.tensor, !ts.tensor, !ts.float) -> !ts.tensor
// CHECK-NEXT:    %m = my_ops.fused_thing %b : (!ts.tensor) -> !ts.tensor
func.func @custom_namespaces(%b : !ts.tensor, %s : !ts.tensor, %t : !ts.float) {
  %k = torchvision.nms %b, %s, %t : (!ts.tensor, !ts.tensor, !ts.float) -> !ts.tensor
  %m = my_ops.fused_thing %b : (!ts.tensor) -> !ts.tensor
  func.return
}
