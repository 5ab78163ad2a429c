// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @no_overload(%s : !ts.str, %x : !ts.tensor) {
  %r = aten.add %s, %x : (!ts.str, !ts.tensor) -> !ts.tensor
  func.return
}

// CHECK: invalid.mlir:4:3: error: 'aten.add' op operands (!ts.str, !ts.tensor) match no schema of aten::add; candidates: aten::add.str(str a, str b) -> str; aten::add(Scalar a, Scalar b) -> Scalar; aten::add.complex(complex a, complex b) -> complex (and 13 more)

// -----

func.func @operand_count(%x : !ts.tensor, %i : !ts.int) {
  %r = aten.size %x, %i, %i : (!ts.tensor, !ts.int, !ts.int) -> !ts.int
  func.return
}

// CHECK: invalid.mlir:13:3: error: 'aten.size' op operands (!ts.tensor, !ts.int, !ts.int) match no schema of aten::size; candidates: aten::size.int(Tensor self, int dim) -> int; aten::size(Tensor self) -> int[]

// -----

// `t` is bound to int by the list and cannot also be float.
func.func @type_variable(%l : !ts.list<!ts.int>, %f : !ts.float) {
  %r = aten.append %l, %f : (!ts.list<!ts.int>, !ts.float) -> !ts.list<!ts.int>
  func.return
}

// CHECK: invalid.mlir:23:3: error: 'aten.append' op operands (!ts.list<!ts.int>, !ts.float) match no schema of aten::append; candidates: aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)

// -----

func.func @schema_op_of_prim(%i : !ts.int) {
  %r = prim.dtype %i : (!ts.int) -> !ts.int
  func.return
}

// CHECK: invalid.mlir:32:3: error: 'prim.dtype' op operands (!ts.int) match no schema of prim::dtype; candidates: prim::dtype(Tensor a) -> int

// -----

// Only the aten namespace is open: other names must be in the schema table.
func.func @unknown_prim(%x : !ts.tensor) {
  %r = prim.foo %x : (!ts.tensor) -> !ts.tensor
  func.return
}

// CHECK: invalid.mlir:42:17: error: Operation prim.foo is not registered

// -----

func.func @unknown_quantized(%x : !ts.tensor) {
  %r = quantized.no_such_op %x : (!ts.tensor) -> !ts.tensor
  func.return
}

// CHECK: invalid.mlir:51:29: error: Operation quantized.no_such_op is not registered
