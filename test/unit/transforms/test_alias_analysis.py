"""AliasDb: aliasing from schemas and the prim rule table, wildcards, write and read
sets, escapes, side effects and hazard-checked moves, on graphs written as PyTorch
graph text."""

from __future__ import annotations

from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue

from tsjit.context import make_context
from tsjit.formats import read_program
from tsjit.transforms.analysis.alias_analysis import AliasDb, is_quiet, op_facts
from tsjit.transforms.analysis.memory_dag import JOIN_LIMIT


class Graph:
    """A parsed graph with its values (by TorchScript name) and their ops."""

    def __init__(self, text: str):
        self.module = read_program(make_context(), text)
        self.func = self.module.ops.first
        assert isinstance(self.func, FuncOp)
        self.values: dict[str, SSAValue] = {a.name_hint: a for a in self.func.body.block.args}  # pyright: ignore[reportAssignmentType]
        for op in self.func.walk():
            for result in op.results:
                if result.name_hint is not None:
                    self.values[result.name_hint] = result
            for region in op.regions:
                for argument in region.block.args:
                    if argument.name_hint is not None:
                        self.values[argument.name_hint] = argument
        self.db = AliasDb(self.func)

    def __getitem__(self, name: str) -> SSAValue:
        return self.values[name]

    def op(self, name: str) -> Operation:
        owner = self.values[name].owner
        assert isinstance(owner, Operation)
        return owner

    def order(self) -> list[str]:
        """The names of the top-level ops' first results, in block order."""
        return [op.results[0].name_hint or op.name for op in self.func.body.block.ops if op.results]


def test_views_alias_their_base_and_clones_do_not():
    g = Graph("""graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %zero : int = prim::Constant[value=0]()
  %z : Tensor = aten::clone(%x, %none)
  %v : Tensor = aten::select(%z, %zero, %zero)
  %w : Tensor = aten::select(%v, %zero, %zero)
  %e : Tensor = aten::exp(%z)
  return (%w)""")
    db = g.db
    assert db.may_alias(g["v"], g["z"]) and db.may_alias(g["w"], g["z"])
    assert not db.may_alias(g["z"], g["x"])
    assert not db.may_alias(g["e"], g["z"])
    assert not db.may_alias(g["zero"], g["zero"])  # ints are not memory


def test_graph_inputs_may_alias_each_other_but_not_new_values():
    g = Graph("""graph(%x : Tensor, %y : Tensor, %xs : Tensor[]):
  %m : Tensor = aten::mul(%x, %y)
  return (%m)""")
    assert g.db.may_alias(g["x"], g["y"])
    assert not g.db.may_alias(g["m"], g["x"])
    assert g.db.escapes_scope([g["x"]]) and g.db.escapes_scope([g["m"]])


def test_values_stored_in_a_list_and_read_back_are_wildcards():
    g = Graph("""graph(%x : Tensor, %i : int):
  %m : Tensor = aten::mul(%x, %x)
  %n : Tensor = aten::neg(%x)
  %l : Tensor[] = prim::ListConstruct(%m)
  %r : Tensor = aten::__getitem__(%l, %i)
  %len : int = aten::len(%l)
  %k : Tensor = aten::sin(%x)
  return (%n)""")
    db = g.db
    assert db.may_alias(g["r"], g["m"]) and db.may_alias(g["r"], g["x"])
    assert db.may_contain_alias([g["l"]], [g["m"]])
    assert not db.may_alias(g["n"], g["m"])
    assert db.escapes_scope([g["m"]]) and db.escapes_scope([g["n"]]) and not db.escapes_scope([g["k"]])


def test_a_list_only_read_by_cat_keeps_its_elements_apart():
    g = Graph("""graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %m : Tensor = aten::mul(%x, %x)
  %l : Tensor[] = prim::ListConstruct(%m, %m)
  %c : Tensor = aten::cat(%l, %zero)
  return (%c)""")
    assert not g.db.may_alias(g["m"], g["x"])
    assert g.db.may_contain_alias([g["l"]], [g["m"]])
    assert not g.db.escapes_scope([g["m"]])


def test_a_tuple_only_returned_is_an_output_not_a_wildcard():
    g = Graph("""graph(%x : Tensor):
  %m : Tensor = aten::mul(%x, %x)
  %n : Tensor = aten::neg(%x)
  %t : (Tensor, Tensor) = prim::TupleConstruct(%m, %x)
  return (%t)""")
    assert not g.db.may_alias(g["m"], g["x"])
    assert g.db.aliases_graph_output([g["m"]]) and not g.db.aliases_graph_output([g["n"]])


def test_if_outputs_alias_both_branches_which_stay_apart():
    g = Graph("""graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::neg(%x)
  %r : Tensor = prim::If(%c)
    block0():
      -> (%a)
    block1():
      -> (%b)
  return (%r)""")
    db = g.db
    assert db.may_alias(g["r"], g["a"]) and db.may_alias(g["r"], g["b"])
    assert not db.may_alias(g["a"], g["b"])


def test_loop_carried_values_alias_initial_and_yielded_values():
    g = Graph("""graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %init : Tensor = aten::exp(%x)
  %out : Tensor = prim::Loop(%n, %true, %init)
    block0(%i : int, %acc : Tensor):
      %next : Tensor = aten::neg(%acc)
      -> (%true, %next)
  return (%out)""")
    db = g.db
    assert db.may_alias(g["out"], g["init"]) and db.may_alias(g["out"], g["next"])
    assert db.may_alias(g["acc"], g["next"])  # the next iteration's argument
    assert not db.may_alias(g["init"], g["next"])


def test_long_chains_of_joins_stay_bounded():
    loops = "\n".join(
        f"""  %v{k + 1} : Tensor = prim::Loop(%n, %true, %v{k})
    block0(%i{k} : int, %a{k} : Tensor):
      %f{k} : Tensor = aten::neg(%a{k})
      -> (%true, %f{k})"""
        for k in range(40)
    )
    g = Graph(f"""graph(%v0 : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
{loops}
  return (%v40)""")
    assert len(g.db.memory_of(g["v40"])) <= JOIN_LIMIT
    assert g.db.may_alias(g["v40"], g["f0"]) and g.db.may_alias(g["v40"], g["v0"])


def test_writes_include_nested_regions_and_views():
    g = Graph("""graph(%x : Tensor, %c : bool):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %z : Tensor = aten::clone(%x, %none)
  %u : Tensor = aten::clone(%x, %none)
  %v : Tensor = aten::select(%z, %one, %one)
  %r : Tensor = prim::If(%c)
    block0():
      %w : Tensor = aten::add_(%v, %one, %one)
      -> (%w)
    block1():
      -> (%u)
  return (%r)""")
    db = g.db
    branch = g.op("r")
    assert db.writes_to_alias(branch, [g["z"]]) and not db.writes_to_alias(branch, [g["x"]])
    assert db.has_writers(g["z"]) and db.has_writers(g["v"])
    assert not db.has_writers(g["x"]) and not db.has_writers(g["u"])
    assert not db.writes_to_wildcard(branch)
    assert db.reads(g.op("w")) >= db.memory_of(g["z"])


def test_conservative_ops_write_every_wildcard_and_have_side_effects():
    g = Graph("""graph(%self : __torch__.M, %x : Tensor):
  %none : NoneType = prim::Constant()
  %local : Tensor = aten::clone(%x, %none)
  %p : Tensor = prim::GetAttr[name="p"](%self)
  %r : Tensor = prim::CallMethod[name="forward"](%self, %x)
  %u : Tensor = aten::my_custom_op(%x)
  return (%local)""")
    db = g.db
    for name in ("r", "u"):
        assert db.has_side_effects(g.op(name)) and db.writes_to_wildcard(g.op(name))
    assert db.has_writers(g["x"]) and db.has_writers(g["p"])
    assert not db.has_writers(g["local"])
    assert not db.has_side_effects(g.op("p"))


def test_print_and_raise_have_side_effects_but_write_nothing():
    g = Graph("""graph(%x : Tensor):
  %msg : str = prim::Constant[value="no"]()
   = prim::Print(%x)
   = prim::RaiseException(%msg)
  return (%x)""")
    db = g.db
    effectful = [op for op in g.func.body.block.ops if op.name in ("prim.Print", "prim.RaiseException")]
    assert len(effectful) == 2
    assert all(db.has_side_effects(op) and not db.writes(op) for op in effectful)
    assert not db.has_writers(g["x"])


def test_random_ops_are_nondeterministic_unless_not_training():
    g = Graph("""graph(%x : Tensor):
  %p : float = prim::Constant[value=0.5]()
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %a : Tensor = aten::dropout(%x, %p, %true)
  %b : Tensor = aten::dropout(%x, %p, %false)
  %m : Tensor = aten::mul(%x, %x)
  return (%a)""")
    db = g.db
    assert db.is_nondeterministic(g.op("a"))
    assert not db.is_nondeterministic(g.op("b")) and not db.is_nondeterministic(g.op("m"))
    assert not db.has_side_effects(g.op("a"))


def test_batch_norm_in_training_writes_its_running_stats():
    g = Graph("""graph(%x : Tensor, %w : Tensor, %b : Tensor, %mean : Tensor, %var : Tensor):
  %true : bool = prim::Constant[value=1]()
  %false : bool = prim::Constant[value=0]()
  %f : float = prim::Constant[value=0.1]()
  %train : Tensor = aten::batch_norm(%x, %w, %b, %mean, %var, %true, %f, %f, %false)
  %infer : Tensor = aten::batch_norm(%x, %w, %b, %mean, %var, %false, %f, %f, %false)
  return (%train)""")
    db = g.db
    assert db.writes_to_alias(g.op("train"), [g["mean"]])
    assert not db.writes(g.op("infer"))


MOVES = """graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %one : int = prim::Constant[value=1]()
  %z : Tensor = aten::clone(%x, %none)
  %a : Tensor = aten::exp(%x)
  %s : Tensor = aten::sum(%z, %none)
  %w : Tensor = aten::add_(%z, %one, %one)
  %t : Tensor = aten::sum(%z, %none)
  %b : Tensor = aten::neg(%a)
  %w2 : Tensor = aten::mul_(%z, %one)
  return (%b)"""


def test_moves_follow_data_dependencies():
    g = Graph(MOVES)
    assert not g.db.move_after_topologically_valid(g.op("a"), g.op("b"))  # %b uses %a
    assert g.order() == ["none", "one", "z", "a", "s", "w", "t", "b", "w2"]
    assert g.db.move_after_topologically_valid(g.op("a"), g.op("w2"))
    assert g.order() == ["none", "one", "z", "s", "w", "t", "w2", "a", "b"]  # %b moved along


def test_moves_keep_reads_and_writes_of_aliasing_memory_in_order():
    g = Graph(MOVES)
    db = g.db
    assert not db.move_after_topologically_valid(g.op("s"), g.op("w"))  # read after write
    assert not db.move_before_topologically_valid(g.op("t"), g.op("w"))  # write after read
    assert not db.move_after_topologically_valid(g.op("w"), g.op("w2"))  # write after write
    assert db.move_before_topologically_valid(g.op("a"), g.op("z"))  # unrelated memory
    assert g.order() == ["none", "one", "a", "z", "s", "w", "t", "b", "w2"]


def test_two_writes_to_the_same_memory_keep_their_order():
    g = Graph("""graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %two : int = prim::Constant[value=2]()
  %z : Tensor = aten::clone(%x, %none)
  %w : Tensor = aten::add_(%z, %two, %two)
  %e : Tensor = aten::exp(%x)
  %w2 : Tensor = aten::mul_(%z, %two)
  return (%z)""")
    assert not g.db.move_after_topologically_valid(g.op("w"), g.op("w2"))
    assert g.db.move_after_topologically_valid(g.op("w"), g.op("e"))
    assert g.order() == ["none", "two", "z", "e", "w", "w2"]


def test_move_before_leaves_dependents_behind_the_point():
    g = Graph("""graph(%x : Tensor):
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::neg(%a)
  %c : Tensor = aten::sin(%x)
  %d : Tensor = aten::cos(%c)
  return (%d)""")
    assert g.db.move_before_topologically_valid(g.op("a"), g.op("d"))
    assert g.order() == ["c", "a", "d", "b"]


def test_nothing_moves_across_side_effects():
    g = Graph("""graph(%x : Tensor):
  %a : Tensor = aten::exp(%x)
   = prim::Print(%x)
  %b : Tensor = aten::neg(%x)
  return (%b)""")
    assert not g.db.move_after_topologically_valid(g.op("a"), g.op("b"))
    assert g.order() == ["a", "b"]


def test_replaced_values_and_forgotten_ops_keep_answers_current():
    g = Graph(MOVES)
    db = g.db
    write = g.op("w")
    assert db.has_writers(g["z"])
    db.forget_op(write)
    db.forget_op(g.op("w2"))
    assert not db.has_writers(g["z"])
    memory = db.memory_of(g["z"])
    db.replace_value(g["z"], g["a"])
    assert db.memory_of(g["a"]) == memory
    assert db.memory_of(g["z"]) and not db.may_alias(g["a"], g["z"])


def test_a_fork_captures_its_inputs_and_nothing_moves_across_it_or_its_wait():
    """The forked code may write what it captured at any time until the wait: the fork
    writes its inputs, they escape, and reads of them stay on their side of it."""
    g = Graph("""graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %z : Tensor = aten::clone(%x, %none)
  %fut : Future[Tensor] = prim::fork_0(%z)
  %e : Tensor = aten::exp(%z)
  %w : Tensor = aten::wait(%fut)
  %f : Tensor = aten::exp(%z)
  return (%e, %f, %w)
with prim::fork_0 = graph(%a : Tensor):
  %one : int = prim::Constant[value=1]()
  %r : Tensor = aten::add_(%a, %a, %one)
  return (%r)""")
    db = g.db
    fork, wait = g.op("fut"), g.op("w")
    assert db.writes_to_alias(fork, [g["z"]]) and db.has_side_effects(fork)
    assert db.escapes_scope([g["z"]])
    assert db.writes_to_alias(wait, [g["z"]]) and db.has_side_effects(wait)
    assert not db.move_before_topologically_valid(g.op("e"), fork, dry_run=True)
    assert not db.move_before_topologically_valid(g.op("f"), wait, dry_run=True)


LAZY_GRAPH = """graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %half : float = prim::Constant[value=0.5]()
  %train : bool = prim::Constant[value=1]()
  %m : int = aten::add(%n, %one)
  %p : Tensor = aten::dropout(%x, %half, %train)
  %q : Tensor = aten::add_(%x, %x, %one)
  %l : Tensor[] = prim::ListConstruct(%p, %q)
  return (%m, %l)"""


def test_a_lazy_db_builds_its_memory_dag_only_for_memory_questions():
    g = Graph(LAZY_GRAPH)
    lazy = AliasDb(g.func, lazy=True)
    add, dropout, write = g.op("m"), g.op("p"), g.op("q")
    assert not lazy.has_writers(g["m"]) and not lazy.escapes_scope([g["m"], g["n"]])
    assert not lazy.has_side_effects(add) and not lazy.is_nondeterministic(add)
    assert lazy.is_nondeterministic(dropout) and not lazy.has_side_effects(write)
    assert not lazy._built  # pyright: ignore[reportPrivateUsage]
    assert lazy.has_writers(g["x"]) and lazy.escapes_scope([g["l"]])
    assert lazy._built  # pyright: ignore[reportPrivateUsage]
    eager = g.db
    for op in (add, dropout, write, g.op("l")):
        assert lazy.writes(op) == eager.writes(op) and lazy.reads(op) == eager.reads(op)


def test_a_lazy_db_sees_the_rewrites_made_before_it_was_built():
    g = Graph(LAZY_GRAPH)
    lazy = AliasDb(g.func, lazy=True)
    write = g.op("q")
    lazy.forget_op(write)  # nothing built yet: nothing to update
    g["q"].replace_all_uses_with(g["x"])
    write.detach()
    write.erase()
    assert not lazy.has_writers(g["p"]) and lazy.may_alias(g["x"], g["x"])
    assert not lazy.has_writers(g["x"])  # the only write went with its op


def test_op_facts_are_shared_per_overload_and_tell_writes_and_fresh_outputs():
    g = Graph("""graph(%x : Tensor, %p : float):
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %r1 : Tensor = aten::relu(%x)
  %r2 : Tensor = aten::relu(%x)
  %v : Tensor = aten::select(%x, %zero, %zero)
  %w : Tensor = aten::relu_(%r1)
  %d1 : Tensor = aten::dropout(%x, %p, %false)
  %d2 : Tensor = aten::dropout(%x, %p, %true)
  %l : Tensor[] = prim::ListConstruct(%r1, %r2)
  return (%l)""")
    facts = {name: op_facts(g.op(name)) for name in ("r1", "r2", "v", "w", "d1", "d2", "l", "zero")}
    assert facts["r1"] is facts["r2"]  # one overload, one object
    assert facts["r1"].writes_nothing and facts["r1"].fresh_outputs
    assert facts["v"].writes_nothing and not facts["v"].fresh_outputs  # a view aliases its input
    assert not facts["w"].writes_nothing
    assert facts["zero"].writes_nothing and facts["zero"].fresh_outputs
    assert facts["l"].writes_nothing and not facts["l"].fresh_outputs  # holds its inputs
    # One signature, but only dropout while training draws: random facts are per op.
    assert not facts["d1"].nondeterministic and facts["d2"].nondeterministic
    assert op_facts(g.op("d2")) is not facts["d2"] and g.db.facts_of(g.op("d2")) is g.db.facts_of(g.op("d2"))


def test_an_operator_no_overload_accepts_is_not_quiet():
    """`is_quiet` decides by kind but agrees with the facts: an op of a read-only kind
    whose overload does not resolve writes everything, as far as the analysis knows."""
    from tsjit.formats.mlir import parse_mlir

    module = parse_mlir(
        make_context(),
        """func.func @f(%x : !ts.tensor, %s : !ts.str) {
  %a = aten.relu %x : (!ts.tensor) -> !ts.tensor
  %b = aten.relu %s : (!ts.str) -> !ts.tensor
  func.return
}""",
        "quiet.mlir",
    )
    good, bad = [op for op in module.walk() if op.name == "aten.relu"]
    assert is_quiet(good) and op_facts(good).writes_nothing
    assert not is_quiet(bad) and not op_facts(bad).writes_nothing and op_facts(bad).side_effecting


def test_effectful_ops_are_those_with_side_effects_or_wildcard_writes_nested_included():
    g = Graph("""graph(%x : Tensor, %flag : bool, %n : int):
  %true : bool = prim::Constant[value=1]()
  %local : Tensor = aten::relu(%x)
  %a : Tensor = aten::relu_(%local)
  %b : Tensor = prim::If(%flag)
    block0():
      %c : Tensor = aten::relu_(%x)
      -> (%c)
    block1():
      %d : Tensor = aten::neg(%x)
      -> (%d)
  %e : Tensor = prim::Loop(%n, %true, %local)
    block0(%i : int, %acc : Tensor):
       = prim::Print(%acc)
      %f : Tensor = aten::add_(%acc, %x, %n)
      -> (%true, %f)
  %g : Tensor = prim::If(%flag)
    block0():
      %h : Tensor = aten::mul(%x, %x)
      -> (%h)
    block1():
      -> (%local)
  return (%a)""")
    db = g.db
    expected = {id(op) for op in g.func.walk() if op is not g.func and (db.has_side_effects(op) or db.writes_to_wildcard(op))}
    assert db.effectful_ops(g.func) == expected
    named = {g.op(n) for n in ("b", "c", "e")}
    assert {id(op) for op in named} <= expected
    assert not {id(g.op(n)) for n in ("local", "a", "d", "g", "h", "f")} & expected
