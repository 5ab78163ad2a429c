# RUN: ts-translate --script %s --entry tuples | filecheck %s --check-prefix=TUPLE
# RUN: ts-translate --script %s --entry lists | filecheck %s --check-prefix=LIST
# RUN: ts-translate --script %s --entry dicts | filecheck %s --check-prefix=DICT
# RUN: ts-translate --script %s --entry strings | filecheck %s --check-prefix=STR
# Tuples, lists, dicts and strings: literals, indexing, slicing, methods, len,
# comprehensions, unpacking.
import torch
from typing import Dict, List, Tuple


def tuples(t: Tuple[torch.Tensor, int, float]):
    a, b, c = t
    first, *rest = (b, 2, 3)
    return t[-1], t[1:], first, rest, a


# TUPLE-LABEL: func.func @tuples(%t: !ts.tuple<!ts.tensor, !ts.int, !ts.float>)
# TUPLE:         %a, %b, %c = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int, !ts.float> -> !ts.tensor, !ts.int, !ts.float
# TUPLE:         %rest = prim.TupleConstruct %{{.*}}, %{{.*}} : (!ts.int, !ts.int) -> !ts.tuple<!ts.int, !ts.int>
# The negative index is normalized: the last element is element 2.
# TUPLE-NEXT:    %[[LAST:.*]] = prim.TupleIndex %t[%{{.*}}] : !ts.tuple<!ts.tensor, !ts.int, !ts.float> -> !ts.float
# TUPLE-NEXT:    %[[TAIL:.*]] = prim.TupleSlice[begin = 1, end = 3] %t : !ts.tuple<!ts.tensor, !ts.int, !ts.float> -> !ts.tuple<!ts.int, !ts.float>
# TUPLE-NEXT:    prim.TupleConstruct %[[LAST]], %[[TAIL]], %b, %rest, %a


def lists(xs: List[int], k: int):
    ys: List[int] = []
    for v in xs:
        ys.append(v * k)
    ys[0] = 100
    sq = [v * v for v in xs if v > 0]
    return ys[-1], ys[1:3], sq, len(ys), [1, 2] + ys


# LIST-LABEL: func.func @lists(%xs: !ts.list<!ts.int>, %k: !ts.int)
# LIST:         %ys = prim.ListConstruct : () -> !ts.list<!ts.int>
# LIST:           %{{.*}} = aten.append %ys, %{{.*}} : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
# LIST:         %{{.*}} = aten._set_item %ys, %{{.*}}, %{{.*}} : (!ts.list<!ts.int>, !ts.int, !ts.int) -> !ts.list<!ts.int>
# The comprehension: a fresh list, a loop appending to it, its `if` as an If.
# LIST:         %sq = prim.ListConstruct : () -> !ts.list<!ts.int>
# LIST:         prim.Loop
# LIST:           %[[POS:.*]] = aten.gt %{{.*}}, %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
# LIST-NEXT:      prim.If %[[POS]] {
# LIST-NEXT:        %[[SQ:.*]] = aten.mul
# LIST-NEXT:        %{{.*}} = aten.append %sq, %[[SQ]] : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
# LIST:         %{{.*}} = aten.__getitem__ %ys, %{{.*}} : (!ts.list<!ts.int>, !ts.int) -> !ts.int
# LIST-NEXT:    %{{.*}} = aten.slice %ys, %{{.*}}, %{{.*}}, %{{.*}} : (!ts.list<!ts.int>, !ts.int, !ts.int, !ts.int) -> !ts.list<!ts.int>
# LIST-NEXT:    %{{.*}} = aten.len %ys : (!ts.list<!ts.int>) -> !ts.int
# LIST-NEXT:    %[[LIT:.*]] = prim.ListConstruct %{{.*}}, %{{.*}} : (!ts.int, !ts.int) -> !ts.list<!ts.int>
# LIST-NEXT:    %{{.*}} = aten.add %[[LIT]], %ys : (!ts.list<!ts.int>, !ts.list<!ts.int>) -> !ts.list<!ts.int>


def dicts(keys: List[str], vals: List[int]):
    d: Dict[str, int] = {}
    for i in range(len(keys)):
        d[keys[i]] = vals[i]
    squares = {k: v * v for k, v in d.items()}
    return d.get("a", -1), "b" in d, squares, {"x": 1}


# DICT-LABEL: func.func @dicts(%keys: !ts.list<!ts.str>, %vals: !ts.list<!ts.int>)
# DICT:         %d = prim.DictConstruct : () -> !ts.dict<!ts.str, !ts.int>
# DICT:           aten._set_item %d, %{{.*}}, %{{.*}} : (!ts.dict<!ts.str, !ts.int>, !ts.str, !ts.int) -> ()
# DICT:         %squares = prim.DictConstruct : () -> !ts.dict<!ts.str, !ts.int>
# DICT:         %{{.*}} = aten.items %d
# DICT:           aten._set_item %squares, %{{.*}}, %{{.*}} : (!ts.dict<!ts.str, !ts.int>, !ts.str, !ts.int) -> ()
# DICT:         %{{.*}} = aten.get %d, %{{.*}}, %{{.*}} : (!ts.dict<!ts.str, !ts.int>, !ts.str, !ts.int) -> !ts.int
# DICT-NEXT:    %{{.*}} = aten.__contains__ %d, %{{.*}} : (!ts.dict<!ts.str, !ts.int>, !ts.str) -> !ts.bool
# DICT-NEXT:    %{{.*}} = prim.DictConstruct %{{.*}}, %{{.*}} : (!ts.str, !ts.int) -> !ts.dict<!ts.str, !ts.int>


def strings(s: str, n: int):
    t = s + "_" + str(n)
    msg = "{}:{}".format(s, n)
    f = f"n={n}"
    return t, msg, f, s.upper(), s.split(","), s[1:], t == "x", len(s)


# STR-LABEL: func.func @strings(%s: !ts.str, %n: !ts.int)
# STR:         %[[U:.*]] = aten.add %s, %{{.*}} : (!ts.str, !ts.str) -> !ts.str
# STR-NEXT:    %[[N:.*]] = aten.str %n : (!ts.int) -> !ts.str
# STR-NEXT:    %t = aten.add %[[U]], %[[N]] : (!ts.str, !ts.str) -> !ts.str
# STR-NEXT:    %msg = aten.format %{{.*}}, %s, %n : (!ts.str, !ts.str, !ts.int) -> !ts.str
# f-strings are `format` calls.
# STR-NEXT:    %f = aten.format %{{.*}}, %n : (!ts.str, !ts.int) -> !ts.str
# STR-NEXT:    %{{.*}} = aten.upper %s : (!ts.str) -> !ts.str
# STR-NEXT:    %{{.*}} = aten.split %s, %{{.*}}, %{{.*}} : (!ts.str, !ts.str, !ts.int) -> !ts.list<!ts.str>
# STR-NEXT:    %{{.*}} = aten.slice %s, %{{.*}}, %{{.*}}, %{{.*}} : (!ts.str, !ts.int, !ts.none, !ts.int) -> !ts.str
# STR-NEXT:    %{{.*}} = aten.eq %t, %{{.*}} : (!ts.str, !ts.str) -> !ts.bool
# STR-NEXT:    %{{.*}} = aten.len %s : (!ts.str) -> !ts.int
