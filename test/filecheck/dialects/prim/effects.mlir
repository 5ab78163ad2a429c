// RUN: ts-opt %s -p cse | filecheck %s --check-prefix=CSE
// RUN: ts-opt %s -p dce | filecheck %s --check-prefix=DCE

// Memory effects as xDSL's generic passes see them: tuples are immutable values (CSE
// merges them); every ListConstruct, DictConstruct and CreateObject is a fresh mutable
// object (never merged, deleted when unused); GetAttr reads (merged only with no write
// in between, deleted when unused); SetAttr and Print write; calls have unknown
// effects; region ops have the effects of their bodies.

func.func @effects(%x : !ts.tensor, %self : !ts.class<"__torch__.M">, %c : !ts.bool) -> (!ts.list<!ts.tensor>, !ts.list<!ts.tensor>, !ts.tuple<!ts.tensor>, !ts.tuple<!ts.tensor>, !ts.tensor, !ts.tensor, !ts.tensor) {
  %l1 = prim.ListConstruct %x : (!ts.tensor) -> !ts.list<!ts.tensor>
  %l2 = prim.ListConstruct %x : (!ts.tensor) -> !ts.list<!ts.tensor>
  %t1 = prim.TupleConstruct %x : (!ts.tensor) -> !ts.tuple<!ts.tensor>
  %t2 = prim.TupleConstruct %x : (!ts.tensor) -> !ts.tuple<!ts.tensor>
  %w1 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
  %w2 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
  prim.SetAttr[name = "w"] %self, %x : !ts.class<"__torch__.M">, !ts.tensor
  %w3 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
  %unused_list = prim.ListConstruct %x : (!ts.tensor) -> !ts.list<!ts.tensor>
  %unused_dict = prim.DictConstruct : () -> !ts.dict<!ts.str, !ts.int>
  %unused_obj = prim.CreateObject : !ts.class<"__torch__.P">
  %unused_read = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
  %unused_u = prim.Uninitialized : !ts.tensor
  %unused_if = prim.If %c -> (!ts.tensor) {
    prim.Yield %x : !ts.tensor
  } else {
    prim.Yield %x : !ts.tensor
  }
  prim.If %c {
    prim.Print(%x) : !ts.tensor
    prim.Yield
  } else {
    prim.Yield
  }
  %unused_call = prim.CallMethod[name = "f"] %self : (!ts.class<"__torch__.M">) -> !ts.int
  func.return %l1, %l2, %t1, %t2, %w1, %w2, %w3 : !ts.list<!ts.tensor>, !ts.list<!ts.tensor>, !ts.tuple<!ts.tensor>, !ts.tuple<!ts.tensor>, !ts.tensor, !ts.tensor, !ts.tensor
}

// CSE-LABEL: func.func @effects
// CSE-NEXT:    %l1 = prim.ListConstruct %x : (!ts.tensor) -> !ts.list<!ts.tensor>
// CSE-NEXT:    %l2 = prim.ListConstruct %x : (!ts.tensor) -> !ts.list<!ts.tensor>
// CSE-NEXT:    %t1 = prim.TupleConstruct %x : (!ts.tensor) -> !ts.tuple<!ts.tensor>
// CSE-NEXT:    %w1 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
// CSE-NEXT:    prim.SetAttr[name = "w"] %self, %x : !ts.class<"__torch__.M">, !ts.tensor
// CSE-NEXT:    %w3 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
// CSE-NEXT:    prim.If %c {
// CSE-NEXT:      prim.Print(%x) : !ts.tensor
// CSE-NEXT:      prim.Yield
// CSE-NEXT:    } else {
// CSE-NEXT:      prim.Yield
// CSE-NEXT:    }
// CSE-NEXT:    %unused_call = prim.CallMethod[name = "f"] %self : (!ts.class<"__torch__.M">) -> !ts.int
// CSE-NEXT:    func.return %l1, %l2, %t1, %t1, %w1, %w1, %w3 : !ts.list<!ts.tensor>, !ts.list<!ts.tensor>, !ts.tuple<!ts.tensor>, !ts.tuple<!ts.tensor>, !ts.tensor, !ts.tensor, !ts.tensor

// DCE-LABEL: func.func @effects
// DCE-NEXT:    %l1 = prim.ListConstruct %x : (!ts.tensor) -> !ts.list<!ts.tensor>
// DCE-NEXT:    %l2 = prim.ListConstruct %x : (!ts.tensor) -> !ts.list<!ts.tensor>
// DCE-NEXT:    %t1 = prim.TupleConstruct %x : (!ts.tensor) -> !ts.tuple<!ts.tensor>
// DCE-NEXT:    %t2 = prim.TupleConstruct %x : (!ts.tensor) -> !ts.tuple<!ts.tensor>
// DCE-NEXT:    %w1 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
// DCE-NEXT:    %w2 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
// DCE-NEXT:    prim.SetAttr[name = "w"] %self, %x : !ts.class<"__torch__.M">, !ts.tensor
// DCE-NEXT:    %w3 = prim.GetAttr[name = "w"] %self : !ts.class<"__torch__.M"> -> !ts.tensor
// DCE-NEXT:    prim.If %c {
// DCE-NEXT:      prim.Print(%x) : !ts.tensor
// DCE-NEXT:      prim.Yield
// DCE-NEXT:    } else {
// DCE-NEXT:      prim.Yield
// DCE-NEXT:    }
// DCE-NEXT:    %unused_call = prim.CallMethod[name = "f"] %self : (!ts.class<"__torch__.M">) -> !ts.int
// DCE-NEXT:    func.return %l1, %l2, %t1, %t2, %w1, %w2, %w3
