//! Explanation pages for diagnostic codes (`skc explain CODE`). Each page says what the rule is, shows a failing
//! example and a fixed one.
//!
//! Examples are fenced as ```` ```sk ```` when they are whole files that the tests below check (the failing ones
//! carry the same inline expectations as `tests/ui`: `(* error: E0001 *)` on the line of the primary label), and
//! as ```` ```text ```` or ```` ```console ```` when they cannot stand alone. The tests also check that every code
//! the compiler emits has a page, that `docs/diagnostics.md` lists every page, and that the builtin table of
//! `docs/language.md` is the one `builtins.rs` describes.

pub struct Explanation {
    pub code: &'static str,
    pub title: &'static str,
    pub body: &'static str,
}

pub static EXPLANATIONS: &[Explanation] = &[
    // --- convergence ------------------------------------------------------------------------------------
    Explanation {
        code: "E0001",
        title: "barrier in potentially diverged control flow",
        body: r#"A block barrier makes every thread of the block wait until all of them have arrived. If the threads
of a block can disagree about reaching it (it sits in a branch or loop whose decision varies between
threads of the block, or after a `return`, `break` or `continue` that only some threads took), the threads
that arrive wait for threads that never come: the kernel deadlocks or behaves in undefined ways. skc
rejects every operation that contains a block barrier (`block_barrier`, `uniform_load`, and the implicit
barrier at the end of each `superstep`) where control flow may be more divergent than block-uniform.

The secondary labels walk back from where control flow diverged to the thread-varying source, step by
step through `let` bindings, assignments and calls. A condition is block-uniform when it is computed only
from constants, literals, scalar kernel parameters, `block_idx_*`, `block_dim_*`, `grid_dim_*`,
`uniform_load` results and loads at such indices from vectors the kernel never writes. `warp_id` and warp
votes are only warp-uniform: they do not make a block barrier safe.

Fix it so that every thread of the block reaches the barrier, without changing what the threads compute:
split the branch around the barrier (`if c then a; Gpu.block_barrier; if c then b`, with `c` computed once,
before `a`: threads reconverge after an `if`), run a loop a block-uniform number of times and guard its work
with the thread-varying condition, guard the rest of the work with an `if` instead of returning early, make
the condition block-uniform, or replace the branch with a data select (`select c a b`).

Erroneous example:

```sk
kernel k (data : int32 vector) =
  if thread_idx_x < 16 then begin
    data.(global_idx) <- 0;
    Gpu.block_barrier  (* error: E0001 *)
  end
```

Fixed (the barrier is reached by every thread, after the branch):

```sk
kernel k (data : int32 vector) =
  if thread_idx_x < 16 then data.(global_idx) <- 0;
  Gpu.block_barrier
```

The same error is reported on the `superstep` keyword when the body of a superstep can be left early
(`return`, `break`, `continue`) by only some threads: its closing barrier would then be skipped by them.

Where it can compute one, skc suggests an edit (a quick fix in the language server), and the help says what it
does: the branch split around the barrier; after `if c then return`, the rest guarded by a flag; a loop whose
trip count varies iterating while some thread runs (`Gpu.block_barrier_or`), its work guarded; a condition
reading shared memory read through `uniform_load`. An edit never changes what a program whose threads in fact
agree computes; where the threads disagree, those that skipped the work now reach the barrier without doing it.
Where no edit can be proven right (the barrier is in a function the branch calls, the code after a `return`
binds a load...), the help stays in words. For an early return the edit gives:

```sk
kernel k (out : int32 vector) (n : int32) =
  let active = not (global_idx >= n) in
  if active then begin
    out.(global_idx) <- 1
  end;
  Gpu.block_barrier
```

See "Convergence rules" in docs/language.md, and "Suggested edits for divergence errors" in
docs/diagnostics.md."#,
    },
    Explanation {
        code: "E0002",
        title: "warp collective in potentially diverged control flow",
        body: r#"Warp collectives (`warp_barrier`, `shfl`, `shfl_down`, `shfl_up`, `shfl_xor`, `all`, `any`,
`ballot`) exchange data between the 32 lanes of a warp. skc emits them with the mask of every lane that
exists in the warp (CUDA's `__shfl_sync(mask, ...)` and friends), so every one of those lanes must execute
the same collective together; if some lanes are on the other side of a branch, the result is undefined
(hangs, or values read from lanes that did not participate). skc therefore requires control flow at a
collective to be at most warp-uniform: every lane of a warp takes the same path. A branch on `warp_id`, on
a vote (`all`, `any`, `ballot`), or on anything block-uniform is fine; a branch on `lane_id`,
`thread_idx_x` or a per-thread value is not. `activemask` and atomics are not collectives and need
nothing.

Erroneous example:

```sk
kernel k (xs : float32 vector) (out : float32 vector) =
  if lane_id < 16 then
    out.(global_idx) <- Gpu.shfl_down xs.(global_idx) 1  (* error: E0002 *)
```

Fixed (every lane shuffles; only the store is conditional):

```sk
kernel k (xs : float32 vector) (out : float32 vector) =
  let v = Gpu.shfl_down xs.(global_idx) 1 in
  if lane_id < 16 then out.(global_idx) <- v
```

A vote makes a condition warp-uniform, but it changes what the branch means: `if Gpu.any (x > 0.0) then w`
runs `w` in every lane of a warp where any lane has `x > 0.0`. Use it only to decide whether the warp runs
the collective at all, and keep each lane's own work under its own condition:

```sk
kernel k (xs : float32 vector) (out : float32 vector) =
  let x = xs.(global_idx) in
  if Gpu.any (x > 0.0) then begin
    let s = Gpu.shfl_down x 1 in
    if x > 0.0 then out.(global_idx) <- s
  end
```

Writing `if Gpu.all c` around a reduction where only some lanes have `c` (`lane_id < 16`) would make no lane do
it.

skc suggests the first fix as an edit where it can (a quick fix in the language server): every lane runs the
collective, a load its operand needs stays under the condition, and the statement that uses the result keeps it
(`let taken = lane_id < 16 in let exchanged = Gpu.shfl_down (if taken then xs.(global_idx) else 0.0) 1 in if
taken then ...`). A loop whose trip count varies by lane iterates while some lane runs (`Gpu.any`), with its
work guarded. Under `thread_idx_x / 32`, which is warp-uniform only in blocks of whole warps, the edit is
`warp_id` in a kernel whose contract makes its blocks one-dimensional, and otherwise the contract
`[@block_multiple 32]` (offered for a person to accept: launches with other blocks are then refused).

See "Convergence rules" in docs/language.md, and "Suggested edits for divergence errors" in
docs/diagnostics.md."#,
    },
    Explanation {
        code: "E0003",
        title: "superstep entered from potentially diverged control flow",
        body: r#"A `superstep { ... }` runs its body and then a block barrier. Starting one where control flow may
not be block-uniform (in a thread-varying branch or loop, or after a thread-varying early exit) means that
some threads of the block never reach that barrier. This is an error whether or not the superstep is
marked `~divergent`: `~divergent` allows divergence inside the superstep, never around it.

Erroneous example:

```sk
kernel k (out : int32 vector) =
  if thread_idx_x < 3 then
    superstep { out.(global_idx) <- 1 }  (* error: E0003 *)
```

Fixed (the superstep is entered by the whole block; the condition moves inside):

```sk
kernel k (out : int32 vector) =
  superstep {
    if thread_idx_x < 3 then out.(global_idx) <- 1
  }
```

skc suggests this edit where it can: the condition bound once before the superstep (`let taken = ... in`), the
work of the branch and of the superstep's body under `if taken`.

See "Supersteps" under "Convergence rules" in docs/language.md."#,
    },
    Explanation {
        code: "E0004",
        title: "divergent control flow in a superstep not marked ~divergent",
        body: r#"A plain superstep promises a bulk-synchronous phase in which every thread does the same work. Inside
one, an `if` whose condition is not block-uniform (it may differ between threads of the block: warp-uniform
is not enough) may only guard straight-line code (assignments, loads, stores and builtin calls, which
compile to predicated instructions): a branch that contains a loop, a call of a device function, a
`return`, `break` or `continue`, or a nested superstep is an error, and so is a loop whose bounds (or
`while` condition) are not block-uniform. If the divergence is intended, say so with
`superstep ~divergent { ... }`, which lifts exactly this restriction (barriers and warp collectives inside
are still checked, E0001 and E0002).

Erroneous example:

```sk
let cleanup (out : int32 vector) = out.(0) <- 0

kernel finish (out : int32 vector) =
  superstep {
    if thread_idx_x = 0 then  (* error: E0004 *)
      cleanup out
  }
```

Fixed:

```sk
let cleanup (out : int32 vector) = out.(0) <- 0

kernel finish (out : int32 vector) =
  superstep ~divergent {
    if thread_idx_x = 0 then
      cleanup out
  }
```

A thread-varying loop bound is the same error:
`superstep { for i = 0 to thread_idx_x do ... done }` needs `~divergent`. skc suggests adding it (the emitted code
is the same).

See "Supersteps" under "Convergence rules" in docs/language.md."#,
    },
    Explanation {
        code: "E0005",
        title: "unknown superstep attribute",
        body: r#"The only attribute a superstep takes is `divergent`: `superstep ~divergent { ... }`, or in Sarek's form
`let%superstep[@divergent] name = ... in`. Any other attribute is an error rather than being ignored, because
a misspelt `~divergent` would otherwise silently change which code is accepted.

Erroneous example:

```sk
kernel k (out : int32 vector) =
  superstep ~convergent {  (* error: E0005 *)
    out.(global_idx) <- 1
  }
```

Fixed (a superstep is checked for convergence by default; no attribute is needed):

```sk
kernel k (out : int32 vector) =
  superstep {
    out.(global_idx) <- 1
  }
```"#,
    },
    Explanation {
        code: "E0006",
        title: "named barrier with an id or thread count that may differ within a warp",
        body: r#"`named_barrier id count` (PTX `bar.sync`) and `named_barrier_arrive id count` (`bar.arrive`) make `count`
threads (whole warps) meet on hardware barrier `id`. Every lane of a warp executes the instruction together, so
every lane must name the same barrier and the same count: the analysis requires both arguments to be at most
warp-uniform (the same in every lane of a warp: constants, parameters, `block_idx_*`, `warp_id`, votes, a `shfl`
from lane 0). The control flow around a named barrier must be warp-uniform too (E0002), but unlike
`block_barrier` it need not be block-uniform: that is what named barriers are for (warp specialisation).

Erroneous example:

```sk
kernel k (out : int32 vector) =
  named_barrier 1 (32 * (lane_id + 1))  (* error: E0006 *)
```

Fixed (the count depends only on the warp):

```sk
kernel k (out : int32 vector) =
  if warp_id < 2 then named_barrier 1 64
```

skc suggests broadcasting the operand from lane 0, `named_barrier 1 (Gpu.shfl n 0)`, which changes nothing where
the lanes agree and makes every lane pass lane 0's value where they do not.

See "Named barriers" in docs/language.md."#,
    },
    // --- syntax -----------------------------------------------------------------------------------------
    Explanation {
        code: "E0100",
        title: "syntax error",
        body: r#"The parser expected one thing and found another; the message says both ("expected `in`, found
`out`"). For an unclosed `(`, `[`, `{`, `begin`, `do` or `[|`, a secondary label points at the opening
delimiter; for two statements on two lines without `;` between them, the error points at the end of the first
line. The parser recovers at the next statement (`;` or a closing token) and at the next top-level item (a
`let` or `kernel` in the first column, `fun` first on its line, `[%kernel`, `type`, `open`), so one run reports
the errors of several items. Later errors in the same item can be consequences of the first: fix from the top.

The most common causes are a `let` without `in` inside a body, a missing `;` between two statements, and a
missing `done` or `end`.

Erroneous example:

```sk
kernel k (out : int32 vector) =
  let x = 1
  out.(global_idx) <- x  (* error: E0100 *)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  let x = 1 in
  out.(global_idx) <- x
```"#,
    },
    Explanation {
        code: "E0101",
        title: "unterminated comment or string",
        body: r#"A comment `(* ... *)` or a string `"..."` runs to the end of the file (comments) or of the line
(strings) without being closed. Comments nest as in OCaml: every `(*` inside a comment needs its own `*)`,
so commenting out code that itself contains a comment works, but a stray `(*` inside a comment keeps it
open. Strings only appear in `pragma ["unroll"]`.

Erroneous example:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- 1
(* TODO: (* nested *) handle the tail  (* error: E0101 *)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- 1
(* TODO: (* nested *) handle the tail *)
```"#,
    },
    Explanation {
        code: "E0102",
        title: "invalid literal",
        body: r#"An integer literal has more bits than its suffix allows: unsuffixed literals and those with the suffix
`l` or `u` must fit in 32 bits, even where the context expects an int64 (write `5000000000L`); `L` and `UL`
literals must fit in 64 bits. A literal that fits 32 bits but not int32 (`0xFFFFFFFF`, `3000000000`) is
accepted, and as an int32 it wraps to a negative value. Underscores may separate digits (`1_000_000`).

Erroneous example:

```sk
kernel k (out : int64 vector) =
  out.(global_idx) <- 99999999999  (* error: E0102 *)
```

Fixed (an int64 literal):

```sk
kernel k (out : int64 vector) =
  out.(global_idx) <- 99999999999L
```"#,
    },
    Explanation {
        code: "E0103",
        title: "invalid character",
        body: r#"The source contains a character that is not part of the `.sk` language (for example `$`, `#`, `?`,
a backquote, or a non-ASCII letter outside a comment). Names are ASCII letters, digits, `_` and `'`; the
operators are OCaml's (docs/language.md, "Lexical structure").

Erroneous example:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- 1 $ 2  (* error: E0103 *)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- 1 + 2
```"#,
    },
    Explanation {
        code: "E0104",
        title: "expression nested too deeply",
        body: r#"Later passes follow at most 200 levels of nesting in one expression; the parser reports this error
(and cuts the expression off there) instead of letting them run out of stack. Every operand of a
right-associative operator (`||`, `&&`, `**`, `<-`), every `if` branch, and every expression nested as the
operand, argument, index or body of another counts as a level; the statements of a sequence, the body of a
`let ... in`, the left operand of a left-associative operator (`a + b + c`) and parentheses do not. Only the
first such error of a file is reported.

Erroneous example (201 nested `if`s, abridged):

```text
kernel k (out : int32 vector) =
  if true then if true then ... out.(0) <- 1
```

Fixed: split the computation into a sequence of `x := ...` updates of a mutable variable, or move parts of
it into device functions:

```sk
let part (x : float32) : float32 = x *. x +. 1.0

kernel k (xs : float32 vector) (out : float32 vector) =
  let acc = mut xs.(global_idx) in
  acc := part acc;
  acc := part acc;
  out.(global_idx) <- acc
```"#,
    },
    Explanation {
        code: "E0105",
        title: "invalid assignment target",
        body: r#"`<-` writes an element or a field: its left side must be `a.(i)` or `r.f` (also `a.(i).f`). `:=`
writes a variable declared with `let x = mut e in` or a cell made with `let r = ref e in`: its left side
must be a name. Anything else (an arithmetic expression, a call, `:=` on an element) is rejected.

Erroneous example:

```sk
kernel k (out : int32 vector) =
  out.(0) := 3  (* error: E0105 *)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  out.(0) <- 3
```"#,
    },
    // --- names, types and constants ---------------------------------------------------------------------
    Explanation {
        code: "E0106",
        title: "malformed `launch_bounds` attribute",
        body: r#"`[@launch_bounds MAX_THREADS]` or `[@launch_bounds MAX_THREADS MIN_BLOCKS]` on a kernel becomes CUDA's
`__launch_bounds__(MAX_THREADS, MIN_BLOCKS)`: the kernel is never launched with more than `MAX_THREADS` threads
per block, and registers are budgeted so that `MIN_BLOCKS` blocks fit on one multiprocessor. Both are positive
integer literals. The attribute belongs to kernels (`kernel[@launch_bounds 256] k ...` or
`let[@launch_bounds 256] k = [%kernel fun ...]`); on a function or a constant it is an error.

Erroneous example:

```sk
kernel[@launch_bounds many] k (out : int32 vector) =  (* error: E0106 *)
  out.(global_idx) <- 1
```

Fixed:

```sk
kernel[@launch_bounds 1024 1] k (out : int32 vector) =
  out.(global_idx) <- 1
```"#,
    },
    Explanation {
        code: "E0107",
        title: "malformed launch contract",
        body: r#"A kernel may declare facts about every launch of it, which the convergence analysis then relies on
for that kernel and the functions it calls, and which the runtime and the interpreter check at every launch:
`[@block_1d]` (`block_dim_y = block_dim_z = 1`), `[@block_multiple M]` (`block_dim_x` is a multiple of the
positive integer literal `M`), `[@block_size N]` (the block is exactly `N` threads along x, 1 to 1024, and
one-dimensional), with `[@launch_bounds T]` as the upper bound. They belong to kernels only, and together they
must leave some launch that keeps them all (`[@block_size 100] [@block_multiple 32]` leaves none). A kernel
with one of the first three is launched from the host only: a device-side `launch` of it is an error, since
nothing checks the geometry the device chooses (CUDA itself refuses blocks above `__launch_bounds__`).

Erroneous example:

```sk
kernel[@block_size 100] [@block_multiple 32] k (out : int32 vector) =  (* error: E0107 *)
  out.(global_idx) <- 1
```

Fixed:

```sk
kernel[@block_size 128] [@block_multiple 32] k (out : int32 vector) =
  out.(global_idx) <- 1
```

See "Launch contracts" in docs/language.md."#,
    },
    Explanation {
        code: "E0200",
        title: "unknown name",
        body: r#"A name is looked up among the local variables in scope (innermost first), then the top-level items of
the file and of every module it opens, then the builtins (docs/language.md, "Builtins"), which are visible
bare and qualified by `Gpu.`, `Std.`, `Math.`, `Float32.` or `Float64.`. A type name must be a scalar type
(`int32`, `int`, `int64`, `uint32`, `uint64`, `float32`, `float`, `float64`, `bool`, `unit`) or a declared
record, and the only type constructors are `vector`, `ref` and `array`. The help suggests the closest
visible name.

Erroneous example:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- thread_id_x  (* error: E0200 *)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- thread_idx_x
```"#,
    },
    Explanation {
        code: "E0201",
        title: "mismatched types",
        body: r#"An expression has a different type from the one its context requires. There are no implicit
conversions: `+ - * /` need two operands of the same numeric type, `+. -. *. /. **` two floats of the same
type, `mod land lor lxor lsl lsr asr` integers, comparisons two operands of the same type, conditions a
`bool`. An integer literal is never a float (`1.0`, not `1`); an unsuffixed float literal takes the float
type its context requires. Convert explicitly with `float32 x`, `float64 x`, `int32 x`, `int64 x`,
`uint32 x` or `uint64 x`. A secondary label shows where the expected type came from (an annotation, a
parameter, the other branch of an `if`); the help proposes the usual fix.

Erroneous example:

```sk
kernel k (out : float32 vector) =
  out.(global_idx) <- global_idx  (* error: E0201 *)
```

Fixed:

```sk
kernel k (out : float32 vector) =
  out.(global_idx) <- float32 global_idx
```"#,
    },
    Explanation {
        code: "E0202",
        title: "wrong number of arguments",
        body: r#"A device function or a builtin is called with more or fewer arguments than it has parameters. Every
call must be complete: there is no partial application, and a function cannot be named without being
called (functions are not values). A device function without parameters is called `f ()`. A builtin
without parameters is used bare (`thread_idx_x`, `Gpu.block_barrier`), or with a unit argument as Sarek
writes it (`block_barrier ()`); a builtin with parameters named without arguments is this error too.

Erroneous example:

```sk
let axpy (a : float32) (x : float32) (y : float32) = a *. x +. y

kernel k (xs : float32 vector) (out : float32 vector) =
  out.(global_idx) <- axpy 2.0 xs.(global_idx)  (* error: E0202 *)
```

Fixed:

```sk
let axpy (a : float32) (x : float32) (y : float32) = a *. x +. y

kernel k (xs : float32 vector) (out : float32 vector) =
  out.(global_idx) <- axpy 2.0 xs.(global_idx) out.(global_idx)
```"#,
    },
    Explanation {
        code: "E0203",
        title: "array size not a compile-time constant",
        body: r#"The size of a local array (`let%local`, `create_array n Local`, the `N` of `T[N]`) must be a positive
integer known at compile time: a literal, a top-level constant, or arithmetic on them. In a kernel, a
shared array may also be sized by integer arithmetic on the kernel's scalar parameters (and literals and
constants), which makes it dynamic shared memory, sized at launch; a kernel can have only one such array.
Any other size computed at run time is this error, as is a size that is zero or negative, and an empty
constant array `[| |]`.

Erroneous example:

```sk
kernel k (xs : float32 vector) (out : float32 vector) (n : int32) =
  let%local (acc : float32) = n in  (* error: E0203 *)
  acc.(0) <- xs.(global_idx);
  out.(global_idx) <- acc.(0)
```

Fixed (a compile-time maximum, which `-D max_n=32` can change):

```sk
let max_n = 16

kernel k (xs : float32 vector) (out : float32 vector) (n : int32) =
  let%local (acc : float32) = max_n in
  acc.(0) <- xs.(global_idx);
  out.(global_idx) <- acc.(0)
```"#,
    },
    Explanation {
        code: "E0204",
        title: "write to read-only data or an immutable variable",
        body: r#"Only mutable things can be written: variables declared `let x = mut e in` (written `x := v`), cells
made by `let r = ref e in` (written `r := v`, read `!r`), elements of vectors, shared and local arrays
(`a.(i) <- v`), and fields reached through them. A plain `let` variable, a parameter, a loop counter, a
top-level constant and a constant array (`let c = [| ... |]`, placed in read-only constant memory) cannot
be written.

Erroneous example:

```sk
kernel k (out : int32 vector) (n : int32) =
  let sum = 0 in
  for i = 0 to n - 1 do
    sum := sum + i  (* error: E0204 *)
  done;
  out.(global_idx) <- sum
```

Fixed:

```sk
kernel k (out : int32 vector) (n : int32) =
  let sum = mut 0 in
  for i = 0 to n - 1 do
    sum := sum + i
  done;
  out.(global_idx) <- sum
```"#,
    },
    Explanation {
        code: "E0205",
        title: "unsupported construct",
        body: r#"The construct is valid OCaml but has no meaning in GPU code, or is not part of the `.sk` language:
`fun` inside a body other than an anonymous function `(fun x -> e)` or `let f = fun x -> e in`, a local
function of a form skc does not lift (a `:=` on a `mut` variable it captures: make the variable a `ref` cell; a
call where a variable it captures is shadowed), a local or anonymous function passed as an argument that calls
a function parameter around it (pass that function itself), `let rec`, a mutable tuple pattern
(`let (a, b) = mut e in`), an array literal
`[| ... |]` anywhere but as the value of a top-level constant, and `[%ext ...]` or `let%ext` extensions other
than `[%kernel ...]`, `[%global ...]`, `let%shared`, `let%local` and `let%superstep`. Use `if`, top-level
device functions and constants, and loops.

Erroneous example:

```sk
kernel k (out : int32 vector) =
  let c = [| 1; 2 |] in  (* error: E0205 *)
  out.(global_idx) <- c.(0)
```

Fixed:

```sk
let c = [| 1; 2 |]

kernel k (out : int32 vector) =
  out.(global_idx) <- c.(0)
```"#,
    },
    Explanation {
        code: "E0206",
        title: "recursion",
        body: r#"Device functions cannot call themselves, directly or through other functions: GPU threads have small
stacks, and skc analyses every call in its context. The diagnostic points at a call of the
cycle and lists the others. A record type that contains itself is the same error. (`let rec` is reported
as E0205.)

Erroneous example:

```sk
let fact (n : int32) : int32 =
  if n <= 1 then 1 else n * fact (n - 1)  (* error: E0206 *)
```

Fixed (a loop):

```sk
let fact (n : int32) : int32 =
  let acc = mut 1 in
  for i = 2 to n do acc := acc * i done;
  acc
```"#,
    },
    Explanation {
        code: "E0207",
        title: "duplicate definition",
        body: r#"A name is defined twice where it must be unique: two top-level items (kernels, functions and constants
share one namespace, and the items of opened modules share it with the root file), two record types, two
fields of one record, or two parameters of one function or kernel. A secondary label shows the first
definition. Local `let` bindings are not affected: an inner `let` shadows an outer one.

Erroneous example:

```sk
let block = 256
let block = 128  (* error: E0207 *)
```

Fixed:

```sk
let block = 256
let half_block = 128
```"#,
    },
    Explanation {
        code: "E0208",
        title: "unknown record field",
        body: r#"A field access `r.f`, a field write `r.f <- v` or a record literal `{ f = ...; ... }` names a field the
record type does not declare, or the value is not a record. A record literal must also give every field
exactly once; a record update `{ r with f = ...; ... }` needs a record `r` and gives each field it names at
most once. When the type of `r` is not known yet, the field name selects the record type (the last
declared record with a field of that name, as in OCaml).

Erroneous example:

```sk
type point = { x : float32; y : float32 }

kernel k (ps : point vector) (out : float32 vector) =
  out.(global_idx) <- ps.(global_idx).z  (* error: E0208 *)
```

Fixed:

```sk
type point = { x : float32; y : float32 }

kernel k (ps : point vector) (out : float32 vector) =
  out.(global_idx) <- ps.(global_idx).y
```"#,
    },
    Explanation {
        code: "E0209",
        title: "cannot infer type",
        body: r#"Nothing in the program decides the type of a parameter, variable or array element. Numbers never cause
this (an integer defaults to int32, a float to float32), but an unannotated parameter that is never used
(in a kernel, or in a device function that something calls), or a `create_array` whose elements are never
read or written, has no type to take. Add an annotation. (A device function that nothing names may leave its
parameters' types open: it has no instance and nothing is emitted for it.)

Erroneous example:

```sk
kernel k (out : int32 vector) scale =  (* error: E0209 *)
  out.(global_idx) <- 1
```

Fixed:

```sk
kernel k (out : int32 vector) (scale : int32) =
  out.(global_idx) <- scale
```"#,
    },
    Explanation {
        code: "E0210",
        title: "not a function or not an array",
        body: r#"Something that is not a function is applied to arguments (`x 2` where `x` is a number; often a missing
`;` before the next line), something that is not an array (a vector, a shared, local or constant array) is
indexed with `.( )`, or a kernel is called or used as a value (kernels are launched from the host; put
shared code in a device function).

Erroneous example:

```sk
kernel k (out : int32 vector) (n : int32) =
  out.(global_idx) <- n.(0)  (* error: E0210 *)
```

Fixed:

```sk
kernel k (out : int32 vector) (n : int32) =
  out.(global_idx) <- n
```"#,
    },
    Explanation {
        code: "E0211",
        title: "cannot open module",
        body: r#"`open M` (or `let open M in`, for a module other than the builtin `Gpu`, `Std`, `Math`, `Float32` and
`Float64`) loads the file `m.sk` (or `M.sk`), looked for next to the file that opens it, then in each
directory given with `-I`, then in the standard library (`$SKC_STDLIB`, or the `stdlib/` folder of the skc
installation, and its subfolders). A note lists every path tried.

Erroneous example (no `weno.sk` anywhere on the search path):

```sk
open Weno  (* error: E0211 *)

kernel k (out : float32 vector) =
  out.(global_idx) <- 0.0
```

Fixed: put `weno.sk` next to the file, or tell skc where it is:

```console
$ ls lib/
weno.sk
$ skc check -I lib k.sk
```"#,
    },
    Explanation {
        code: "E0212",
        title: "constant not computable at compile time",
        body: r#"A top-level `let name = e` (without parameters) is a compile-time constant: its value is computed by the
compiler, with the arithmetic of the target types. It may use literals, other constants (defined
anywhere in the file, but not in terms of itself), arithmetic, comparisons, `&&`, `||`, `not`, indexing of
constant arrays, type annotations, and the builtins `select`, `min`, `max`, `abs` and the conversions
(`float32`, `int32`, ...). `if`, thread indices, math functions such as `sqrt`, and anything that reads
memory cannot be computed; neither can a division by zero or a shift by more than the width. Write the
value (`select` replaces an `if`), or make it a device function.

Erroneous example:

```sk
let sqrt2 = sqrt 2.0  (* error: E0212 *)

kernel k (out : float32 vector) =
  out.(global_idx) <- sqrt2
```

Fixed:

```sk
let sqrt2 = 1.41421356

kernel k (out : float32 vector) =
  out.(global_idx) <- sqrt2
```"#,
    },
    Explanation {
        code: "E0213",
        title: "break or continue outside a loop",
        body: r#"`break` leaves the innermost `for` or `while` loop and `continue` starts its next iteration; outside a
loop they mean nothing. To leave a kernel or device function early, use `return`.

Erroneous example:

```sk
kernel k (out : int32 vector) (n : int32) =
  if global_idx >= n then break;  (* error: E0213 *)
  out.(global_idx) <- 1
```

Fixed:

```sk
kernel k (out : int32 vector) (n : int32) =
  if global_idx >= n then return;
  out.(global_idx) <- 1
```"#,
    },
    Explanation {
        code: "E0214",
        title: "invalid kernel parameter type",
        body: r#"A kernel's parameters are what the host passes at launch: scalars (`int32`, `int64`, `uint32`, `uint64`,
`float32`, `float64`, `bool`), records, and `T vector` of those (an array in global memory). A `T ref`,
`unit`, or a shared or local array type (`T array`, `T[N]`) cannot be passed from the host. To return a
value from a kernel, write it to a vector. A type variable (`'a`) cannot be either: a kernel is launched with
one type per parameter (a device function may be generic, and is instantiated per use).

Erroneous example:

```sk
kernel k (total : int32 ref) =  (* error: E0214 *)
  total := 0
```

Fixed:

```sk
kernel k (total : int32 vector) =
  total.(0) <- 0
```"#,
    },
    Explanation {
        code: "E0215",
        title: "invalid -D override",
        body: r#"`-D NAME=VALUE` replaces the value of the top-level constant `NAME` of the compiled file (or of a
module it opens) for this compilation. `NAME` must be such a constant (names are case-sensitive), and
`VALUE` a literal of the constant's type: `true` or `false` for a bool, an integer (decimal or `0x`
hexadecimal, optionally negative, with an optional suffix) that fits an integer constant's type, a float
for a float constant. Arrays and records cannot be overridden. A bad value is reported at the constant's
name (and at the value, in a pseudo-file `<command line>` that lists the `-D` definitions one per line); an
unknown name in that pseudo-file (`<command line>:1:4`). (A `-D` without `=` is a usage error of the command
line, exit status 2.)

Erroneous example, with `let tile = 256` in `k.sk`:

```console
$ skc check -D tile=big k.sk
$ skc check -D TILE=128 k.sk
```

Fixed:

```console
$ skc check -D tile=128 k.sk
```"#,
    },
    Explanation {
        code: "E0216",
        title: "named barrier id or thread count out of range",
        body: r#"When the id or the thread count of `named_barrier` or `named_barrier_arrive` is known at compile time, it
must be valid: ids go from 1 to 15 (a block has 16 hardware barriers and `block_barrier` uses barrier 0), and the
count is a positive multiple of 32 of at most 1024 (whole warps take part).

Erroneous example:

```sk
kernel k (out : int32 vector) =
  if warp_id < 2 then named_barrier 0 48  (* error: E0216 *)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  if warp_id < 2 then named_barrier 1 64
```"#,
    },
    Explanation {
        code: "E0217",
        title: "unknown module qualifier",
        body: r#"A qualified name `M.x` names a built-in namespace (`Gpu`, `Std`, `Math`, `Float32`, `Float64`,
`Int32`, `Int64`: the builtins) or a module that a file of the program opens with `open M` (the items of
`m.sk`). Any other `M` is an error: a misspelt or missing `open` would otherwise be silently ignored. (A qualified item that exists,
but in another file than `M`'s, is E0200, with a label at its definition.)

Erroneous example:

```sk
let half (x : float32) : float32 = x *. 0.5

kernel k (out : float32 vector) =
  out.(global_idx) <- Util.half 1.0  (* error: E0217 *)
```

Fixed (the item is in this file: no qualifier):

```sk
let half (x : float32) : float32 = x *. 0.5

kernel k (out : float32 vector) =
  out.(global_idx) <- half 1.0
```"#,
    },
    Explanation {
        code: "E0218",
        title: "modules open each other in a cycle",
        body: r#"`open M` makes the items of module `M` (the file `m.sk`) visible in the file that opens it. A module that
opens itself, or opens a module that (directly or not) opens it back, is a cycle: each module of the program is
read once, so the cycle adds nothing, and it usually means that an `open` was put in the wrong file. The root
file counts as the module its name makes (`k.sk` is `K`). The error is reported at the `open` that closes the
cycle, with a label at each other `open` on it.

Erroneous example, `a.sk`:

```text
open A  (* error: E0218: module `A` opens itself *)

kernel k (out : int32 vector) = out.(global_idx) <- 1
```

or `a.sk` opening `B` and `b.sk` opening `A`.

Fixed: remove the `open` that closes the cycle; a module sees the items of the modules it opens, and the file
that opens both sees them all."#,
    },
    Explanation {
        code: "E0219",
        title: "a type that cannot be stored where it is",
        body: r#"Some types have no representation in memory, so nothing can hold them:

- `unit` is a value with nothing in it (the result of a store or of a `unit` function): it cannot be the
  element of an array or vector, or the contents of a `ref` cell (use the value itself, or nothing);
- a `ref` cell is a variable, not a value: it cannot be an array element;
- a record is a C `struct` of values, so its fields are scalars (`int32`, ..., `bool`) and records, not
  `unit`, vectors, arrays or `ref` cells.

Unit values themselves are fine: a `unit` parameter, a `let` of a `unit` value, a function returning `unit`.
(A kernel parameter has its own rule, E0214.)

Erroneous example:

```sk
type sample = { value : float32; seen : unit }  (* error: E0219 *)

kernel k (out : float32 vector) =
  out.(global_idx) <- 1.0
```

Fixed:

```sk
type sample = { value : float32; seen : bool }

kernel k (out : float32 vector) =
  out.(global_idx) <- 1.0
```"#,
    },
    Explanation {
        code: "E0220",
        title: "a resource limit of the target architecture is exceeded",
        body: r#"A program that checks must compile, so `skc check` holds it to the limits of the architecture it is
compiled for: sm_90 unless `skc check --arch sm_XY` (and `skc build --arch`) names another. The limits, measured
with NVRTC 13 (which compiles for sm_75 to sm_121):

| Resource | Limit | Counted |
|---|---|---|
| static shared memory of a block | 49,152 bytes (every architecture) | the kernel's fixed-size shared arrays and those of every function it calls (once each), each from a 16-byte boundary |
| constant memory of a program | 65,536 bytes (every architecture) | the top-level array constants that kernels and functions read, each from a 16-byte boundary |
| parameters of a kernel | 32,764 bytes (every architecture) | the parameters laid out as a C struct: scalars at their size, vectors as 8-byte pointers, records by value |
| local memory of a thread | 524,288 bytes (every architecture) | the kernel's local arrays and those of every function it calls (once each) |
| `[@launch_bounds T B]` | `T` at most 1024; `B` at most the blocks a multiprocessor holds (16 on sm_75 and sm_86-88, 24 on sm_89 and sm_110-121, 32 otherwise); `B` blocks of `T` threads rounded up to whole warps at most the threads it holds (1024 on sm_75, 1536 on sm_86-89 and sm_110-121, 2048 otherwise) | |

The error is reported at the declaration that crosses the limit (the array, the parameter, the constant, the
attribute), with the total so far and the limit. Registers are not a hard limit: a kernel that needs more than
its launch bounds allow spills to local memory (`skc build` reports it, W0100). Dynamic shared memory (an array
whose size is a kernel parameter) is sized at launch and checked by the runtime.

Erroneous example:

```sk
kernel k (out : float64 vector) =
  let%shared (tile : float64) = 8192 in  (* error: E0220 *)
  tile.(thread_idx_x) <- 1.0d;
  Gpu.block_barrier;
  out.(global_idx) <- tile.(thread_idx_x)
```

Fixed (a smaller tile, or a dynamic shared array sized at launch):

```sk
kernel k (out : float64 vector) (n : int32) =
  let%shared (tile : float64) = n in
  tile.(thread_idx_x) <- 1.0d;
  Gpu.block_barrier;
  out.(global_idx) <- tile.(thread_idx_x)
```"#,
    },
    Explanation {
        code: "E0221",
        title: "float literal out of range",
        body: r#"A float literal must be finite in its type: float32 goes up to about 3.4028235e38, float64 to about
1.7976931348623157e308. A larger literal would silently be an infinity (an unsuffixed literal takes the float
type its context requires, so `1e39` is an error where a float32 is expected and fine where a float64 is). Write
`infinity` (or `neg_infinity`) if an infinity is meant, or make the value a float64 (`1e39d`). A literal that
rounds to zero or to a subnormal is a warning instead (W0004).

Erroneous example:

```sk
kernel k (out : float32 vector) =
  out.(global_idx) <- 1e39  (* error: E0221 *)
```

Fixed:

```sk
kernel k (out : float32 vector) =
  out.(global_idx) <- infinity
```"#,
    },
    Explanation {
        code: "E0222",
        title: "a `ref` cell or an array where only a value may go",
        body: r#"A `ref` cell is passed to a device function by reference, and `let p = r in` makes `p` a second name for
the cell `r`: a write through either name changes the one cell. Arrays and vectors are passed as pointers the
same way. Anything else that would produce a cell copies it, and a write through the copy would be lost, so:

- a cell is bound (`let p = ... in`) or passed to a `ref` parameter only as `ref e` or by a name (`r`,
  `(r : int32 ref)`): not chosen by `if` or `select`, taken from an array or a record, or left by a sequence or
  a `let` (reading such a cell, `!(if c then a else b)`, is only a value and is fine);
- a cell holds a value (a number, a bool or a record), not another cell, an array or a vector;
- a `mut` variable holds a value too (name an array or a cell with a plain `let`, pass it as a parameter of
  its own); so does a record field (E0219);
- a device function returns a value, not a cell, an array or a vector.

The convergence analysis relies on these rules to know whose contents each write changes.

Erroneous example:

```sk
let bump (p : int32 ref) = p := !p + 1

kernel k (out : int32 vector) =
  let a = ref 0 in
  let b = ref 0 in
  bump (if global_idx < 16 then a else b);  (* error: E0222 *)
  out.(global_idx) <- !a + !b
```

Fixed (branch around the call, so each call names its cell):

```sk
let bump (p : int32 ref) = p := !p + 1

kernel k (out : int32 vector) =
  let a = ref 0 in
  let b = ref 0 in
  if global_idx < 16 then bump a else bump b;
  out.(global_idx) <- !a + !b
```"#,
    },
    // --- building ------------------------------------------------------------------------------------------
    Explanation {
        code: "E0223",
        title: "shuffle width out of range",
        body: r#"The last argument of `shfl_width`, `shfl_up_width`, `shfl_down_width` and `shfl_xor_width` is the
width of the groups of lanes the shuffle works in. CUDA defines these shuffles only for a power of two from 1 to
32 (the warp's size); when the width is known at compile time, any other value is an error. (A width computed
at run time is not checked: keep it a power of two.)

Erroneous example:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- shfl_xor_width global_idx 1 12  (* error: E0223 *)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- shfl_xor_width global_idx 1 16
```"#,
    },
    Explanation {
        code: "E0224",
        title: "builtin not available on the target architecture",
        body: r#"Some builtins map to a hardware instruction that older architectures do not have: the warp
reductions (`warp_reduce_add` and the others, PTX `redux.sync`) need sm_80 or newer, and `atomic_add` on a
`bfloat16` array and `atomic_add_bfloat16x2` (PTX `atom.add.noftz.bf16`, `.bf16x2`) sm_90 or newer. `skc check` and `skc build`
check the program against the target (`--arch`, sm_90 unless told otherwise), so a program that uses one on an
older target is rejected at each use instead of failing in NVRTC.

Erroneous example (checked with `--arch sm_75`):

```console
$ skc check --arch sm_75 k.sk
error[E0224]: `warp_reduce_add` needs sm_80 or newer, and the target is sm_75
```

Fixed: build for sm_80 or newer, or reduce with shuffles, which every architecture has:

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  let v = mut xs.(global_idx) in
  for i = 0 to 4 do
    v := v + shfl_xor v (1 lsl i)
  done;
  out.(global_idx) <- v
```"#,
    },
    Explanation {
        code: "E0225",
        title: "a printf format that is not a string literal, or that the device printf cannot print",
        body: r#"`printf format args...` prints with CUDA's device `printf`. Its format must be a string literal,
written in the call, so that the compiler can check each conversion against its argument: `%d %i` (int32), `%u`
(uint32), `%x %X %o` (int32 or uint32), the same with `l` or `ll` for int64 and uint64, `%c` (int32),
`%f %F %e %E %g %G` (float32 or float64) and `%%` for a percent sign, with the flags `- + 0` and space, a width and
a precision. `%s` (a kernel has no strings), `%p`, `%n`, a `*` width, the `#` flag and the lengths `h`, `hh`, `j`,
`z`, `t`, `L` are refused, and so is a string literal anywhere but as a format: there are no string values.

Erroneous example:

```sk
kernel k (xs : float32 vector) =
  printf "x=%s\n" xs.(global_idx)  (* error: E0225 *)
```

Fixed:

```sk
kernel k (xs : float32 vector) =
  printf "x=%f\n" xs.(global_idx)
```"#,
    },
    Explanation {
        code: "E0230",
        title: "a vector load or store on storage that cannot be aligned for it",
        body: r#"`load_float4 a i` reads the elements `4 i .. 4 i + 3` of `a` as one `float4` in one instruction
(`ld.global.v4.f32`), and `store_float4 a i v` writes them in one. The hardware needs the address to be a
multiple of the vector's size (16 bytes for a `float4`), and the index counts whole vectors, so the address is
aligned when the array's base is: skc aligns every shared and local array that a vector access reaches, and
the runtime checks the pointer of every vector parameter at launch. A constant array (`let c = [| ... |]` at top
level) lives in `__constant__` memory aligned only to its elements, so no vector access may read it.

Erroneous example:

```sk
let table = [| 1.0; 2.0; 3.0; 4.0 |]

kernel k (out : float32 vector) =
  let v = load_float4 table 0 in  (* error: E0230 *)
  out.(global_idx) <- v.x
```

Fixed (read the elements one by one):

```sk
let table = [| 1.0; 2.0; 3.0; 4.0 |]

kernel k (out : float32 vector) =
  out.(global_idx) <- table.(0)
```"#,
    },
    Explanation {
        code: "E0231",
        title: "a multi-dimensional array indexed with the wrong number of indices, or used as a value",
        body: r#"`let%shared (tile : float32) = (16, 17) in` declares a two-dimensional array of 16 rows of 17
elements, row-major, and an element is `tile.(y).(x)` (or `tile.(y, x)`): one index per dimension. The array
and its rows exist only to be indexed in place, as the emitted `float tile[16][17]` is: `tile.(y)` alone (a
row) is not a value, an element cannot be indexed again, and the array is not passed to a function (a `T
array` parameter is one-dimensional), bound by `let`, returned or chosen by `if`; no parameter has a
multi-dimensional type.

Erroneous example (a row passed where a value is expected):

```sk
kernel k (out : float32 vector) =
  let%shared (tile : float32) = (16, 17) in
  tile.(thread_idx_y).(thread_idx_x) <- 1.0;
  Gpu.block_barrier;
  out.(global_idx) <- tile.(thread_idx_y)  (* error: E0231 *)
```

Fixed (one index per dimension):

```sk
kernel k (out : float32 vector) =
  let%shared (tile : float32) = (16, 17) in
  tile.(thread_idx_y).(thread_idx_x) <- 1.0;
  Gpu.block_barrier;
  out.(global_idx) <- tile.(thread_idx_y).(thread_idx_x)
```"#,
    },
    Explanation {
        code: "E0232",
        title: "a constant index outside a dimension of a multi-dimensional array",
        body: r#"Each index of a multi-dimensional array selects within its own dimension: in
`let%shared (tile : float32) = (16, 17) in`, `tile.(y).(x)` needs `0 <= y < 16` and `0 <= x < 17`. An index
known at compile time outside its dimension is an error (a thread-varying one is checked by `skc run`, which
reports it in its dimension, R0004). In the emitted C, `tile[0][17]` would silently read `tile[1][0]`.

Erroneous example:

```sk
kernel k (out : float32 vector) =
  let%shared (tile : float32) = (16, 17) in
  tile.(thread_idx_y).(thread_idx_x) <- 1.0;
  Gpu.block_barrier;
  out.(global_idx) <- tile.(0).(17)  (* error: E0232 *)
```

Fixed:

```sk
kernel k (out : float32 vector) =
  let%shared (tile : float32) = (16, 17) in
  tile.(thread_idx_y).(thread_idx_x) <- 1.0;
  Gpu.block_barrier;
  out.(global_idx) <- tile.(0).(16)
```"#,
    },
    Explanation {
        code: "E0233",
        title: "a function where a value is expected, or a value where a function is",
        body: r#"A device function can be passed to a parameter of another device function that calls it
(`reduce_block add x`, with `let reduce_block op x = ... op a b ...`): the compiler makes one copy of
`reduce_block` per function passed (`reduce_block__add`), which calls that function directly. That is all a
function can do besides being called: it is not a value. Binding it to a variable, returning it, storing it in
a vector or a record, assigning a function parameter, or giving a kernel a parameter of function type
(`float32 -> float32`) is this error, and so is passing something other than the name of a device function,
a builtin or an anonymous function (`(fun a b -> a + b)`) where a function parameter expects one. An anonymous
function is only such an argument: bound by `let`, returned, or given to a builtin or to a parameter the callee
does not call, it is this error too. A function passed as an argument is also an error where the
function that receives it has a local variable of the same name in scope at the call (the call would name the
local): rename the local.

Erroneous example:

```sk
let add (a : float32) (b : float32) = a +. b
let combine op (x : float32) = op x x

kernel k (xs : float32 vector) (out : float32 vector) =
  let f = add in  (* error: E0233 *)
  out.(global_idx) <- combine 2.0 xs.(global_idx)  (* error: E0233 *)
```

Fixed:

```sk
let add (a : float32) (b : float32) = a +. b
let combine op (x : float32) = op x x

kernel k (xs : float32 vector) (out : float32 vector) =
  out.(global_idx) <- combine add xs.(global_idx)
```"#,
    },
    Explanation {
        code: "E0234",
        title: "an operation not defined on float16 or bfloat16",
        body: r#"The 16-bit floats `float16` and `bfloat16` have what the GPU computes exactly as skc defines
it (every result rounded once, to nearest even): conversions to and from every numeric type, `+.`, `-.`,
`*.`, `/.`, comparisons, negation, `abs`, `min`, `max`, `fma`, `select` and `atomic_add` (one rounding per
add), loads and stores of vectors and shared or local arrays of them, and their pairs `float16x2` and
`bfloat16x2` (`make_float16x2`, `load_float16x2`, `store_float16x2` and the bfloat16 ones; `+. -. *. /.`,
negation and `fma` lane by lane). Math functions
(`sqrt`, `exp`, `sin`...), `**`, the other atomics (`atomic_exch`, `atomic_cas`, the ordered ones), shuffles and
the other builtins are not defined on them: compute in float32 and convert the result back.

Erroneous example:

```sk
kernel k (xs : float16 vector) (out : float16 vector) =
  out.(global_idx) <- sqrt xs.(global_idx)  (* error: E0234 *)
```

Fixed:

```sk
kernel k (xs : float16 vector) (out : float16 vector) =
  out.(global_idx) <- float16 (sqrt (float32 xs.(global_idx)))
```"#,
    },
    Explanation {
        code: "E0235",
        title: "a constructor or pattern that does not fit its variant type",
        body: r#"A variant type (`type shape = Circle of float32 | Rect of float32 * float32`) declares constructors,
each with a payload of a fixed number of values. This error is a constructor declared twice in a file, a payload
type that is not a scalar or a record or variant declared before it, a constructor given the wrong number of
values (`Rect 1.0`; several values are written as a tuple, `Rect (1.0, 2.0)`), a pattern that binds the wrong
number of payload values, a pattern naming a constructor no variant type of the file declares before it, the
constructors of two types (or constructors and integers) in one `match`, or a name bound in a pattern of several
alternatives (`A x | B x`).

Erroneous example:

```sk
type shape = Circle of float32 | Rect of float32 * float32

let area (s : shape) : float32 =
  match s with
  | Circle r -> 3.14159 *. r *. r
  | Rect (w, h, d) -> w  (* error: E0235 *)
```

Fixed:

```sk
type shape = Circle of float32 | Rect of float32 * float32

let area (s : shape) : float32 =
  match s with
  | Circle r -> 3.14159 *. r *. r
  | Rect (w, h) -> w *. h
```"#,
    },
    Explanation {
        code: "E0236",
        title: "a match that does not cover every value",
        body: r#"A `match` must have an arm for every value it may test: one for each constructor of the variant type
(the message names those left out), or a last arm `_ -> ...`; a match on integers always needs that last arm.
A value no arm matches would have no defined result.

Erroneous example:

```sk
type color = Red | Green | Blue

let code (c : color) : int32 =
  match c with  (* error: E0236 *)
  | Red -> 1
  | Green -> 2
```

Fixed:

```sk
type color = Red | Green | Blue

let code (c : color) : int32 =
  match c with
  | Red -> 1
  | Green -> 2
  | Blue -> 3
```"#,
    },
    Explanation {
        code: "E0240",
        title: "an argument that does not fit a module's parameters, or a malformed parameter",
        body: r#"A module declares its parameters with `[@param]`: a type (`type[@param] real = float64`), a value with
a written type (`let[@param] order : int32 = 5`) or a device function (`let[@param] rhs (y : real) : real = y`,
its body the default). `open M (name = value, ...)` gives them arguments. This error is an argument whose name
is no parameter of `M` (the parameters of `M` are those of its file and of the modules it opens), an argument of
the wrong kind (a type's argument must be a type's name, a function's the name of a device function or builtin),
a value parameter without a written type, `[@param]` on a kernel, or a parameter's name declared twice (the
modules of a program share their parameters' names). A value argument of the wrong type is a
type error (E0201) at the argument.

Erroneous example (`scale.sk` declares `type[@param] real = float64` and `let[@param] factor : int32 = 2`):

```text
open Scale (precision = float32) as S32   (* error: E0240: Scale has no parameter `precision` *)
open Scale (real = 1.5) as S   (* error: E0240: `real` is a type *)
```

Fixed:

```text
open Scale (real = float32, factor = 3) as S32
```"#,
    },
    Explanation {
        code: "E0241",
        title: "two instances under one name, an instance inside an instance, or a shared module given two arguments",
        body: r#"`open M (...) as A` makes an instance of `M` named `A`: a copy of `M` and of the modules it opens whose
items are `A_x`, reached as `A.x`. Each instance needs a name of its own, and a module opened inside an instance
is part of that instance (it cannot make an instance of its own). Without `as`, arguments set the parameters of
the one copy of `M` that every file shares, so two opens that give one parameter different arguments
contradict each other.

Erroneous example:

```text
open Scale (real = float32) as S
open Scale (real = float64) as S   (* error: E0241 *)
open Weno (real = float32)
open Weno (real = float64)   (* error: E0241 *)
```

Fixed:

```text
open Scale (real = float32) as S32
open Scale (real = float64) as S64
```"#,
    },
    Explanation {
        code: "E0300",
        title: "NVRTC failed on the CUDA C skc generated (an internal compiler error)",
        body: r#"Reported by `skc build` and `skc emit --emit ptx` (not `skc check`), which exit with status 101: the
program checked, skc generated CUDA C for it, and NVRTC (the CUDA compiler) crashed on that CUDA C or
rejected it. Every program `skc check` accepts must compile, so this is a bug in skc (or in NVRTC), not in
your program. NVRTC runs in a separate process, so its crash becomes this diagnostic; after a crash, skc
compiles each kernel's CUDA C alone and reports the kernels NVRTC crashes on, at their names. A note says how
NVRTC's process ended (for example `killed by signal 11 (SIGSEGV)`) or what NVRTC printed, and where the
CUDA C was kept (next to the other artifacts for `skc build`, in the system's temporary folder for `skc
emit`).

Please report it with the `.sk` file and the kept CUDA C. Until it is fixed, rewriting the expression the
kernel's CUDA C fails on (often the last one you changed) usually avoids it.

Example (what the report looks like):

```text
error[E0300]: internal compiler error: NVRTC crashed on the CUDA C generated for kernel `k`
 4 | kernel k (o : b vector) =
   |        ^ NVRTC crashes on this kernel's CUDA C
   = note: NVRTC's worker process was killed by signal 11 (SIGSEGV)
   = note: the CUDA C is kept in ./crash.cu
   = help: this is a bug in skc: please report it with crash.sk and the CUDA C
```"#,
    },
    // --- reports of `skc run` (the interpreter) ----------------------------------------------------------------
    Explanation {
        code: "R0001",
        title: "barrier divergence at run time",
        body: r#"`skc run` (the interpreter) found a block where no thread could go on: some threads wait at a block
barrier (`block_barrier`, the end of a `superstep`, `uniform_load`, or a named barrier) that the others never
reach, because they wait at another barrier or have left the kernel. A barrier completes only when every
thread of the block reaches the same barrier (the same place in the program, through the same calls); a
thread that has exited does not count. On a GPU this is a deadlock or undefined behaviour (hardware since
Volta counts exited threads as arrived, so some such programs appear to work there).

The report names the threads waiting at each place and the threads that left, by rank in the block (x
fastest). The convergence analysis rejects every program that can do this (E0001); the interpreter shows it
happening when such a program is run with `skc run --no-check`, and the tests use it to check the analysis.

Erroneous example (run with `--no-check`: threads 0-15 wait, 16 and up leave the kernel):

```sk
kernel k (out : int32 vector) =
  if thread_idx_x < 16 then
    Gpu.block_barrier;  (* error: E0001 *)
  out.(global_idx) <- 1
```

Fixed (every thread reaches the barrier):

```sk
kernel k (out : int32 vector) =
  Gpu.block_barrier;
  if thread_idx_x < 16 then out.(global_idx) <- 1
```

See docs/interp.md."#,
    },
    Explanation {
        code: "R0002",
        title: "warp collective divergence at run time",
        body: r#"`skc run` found a warp whose lanes cannot all reach the same warp collective (`warp_barrier`, a
shuffle, a vote, a named barrier's warp step): some lanes wait at it while others wait elsewhere or have
left the kernel. skc emits each collective with the mask of every lane that exists in the warp (all 32, or
the lanes below the block's size in its last warp), so every one of them must arrive; CUDA leaves the result
undefined otherwise. The convergence analysis rejects such programs (E0002); `skc run --no-check` shows the
divergence.

Erroneous example (run with `--no-check`: lanes 0-15 wait at the shuffle, 16-31 leave):

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  let v = mut xs.(global_idx) in
  if lane_id < 16 then
    v := v + Gpu.shfl_xor v 1;  (* error: E0002 *)
  out.(global_idx) <- v
```

Fixed (the whole warp shuffles; only the use is conditional):

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  let v = xs.(global_idx) in
  let other = Gpu.shfl_xor v 1 in
  out.(global_idx) <- (if lane_id < 16 then v + other else v)
```"#,
    },
    Explanation {
        code: "R0003",
        title: "data race",
        body: r#"Two threads accessed the same word of shared memory or of a vector, at least one of them wrote it,
not both accesses were atomic, and no barrier that both threads took part in came between them (block
barriers order the threads of a block, `warp_barrier` the lanes of a warp, a named barrier the warps that
meet there; threads of different blocks are never ordered). What the kernel computes then depends on the
order in which the GPU runs its threads. The report shows both accesses and names both threads.

Erroneous example (each thread reads its neighbour's element while the neighbour may be writing it):

```sk
kernel k (out : int32 vector) =
  let%shared (tile : int32) = 64 in
  tile.(thread_idx_x) <- thread_idx_x;
  out.(global_idx) <- tile.((thread_idx_x + 1) mod 64)
```

Fixed (a barrier between the writes and the reads):

```sk
kernel k (out : int32 vector) =
  let%shared (tile : int32) = 64 in
  superstep { tile.(thread_idx_x) <- thread_idx_x };
  out.(global_idx) <- tile.((thread_idx_x + 1) mod 64)
```

`skc run --no-races` skips the check (and its shadow memory)."#,
    },
    Explanation {
        code: "R0004",
        title: "index out of bounds",
        body: r#"A thread accessed element `i` of a vector, shared, local or constant array with `i` negative or
not below its length (a vector's length is the host's buffer's; a shared or local array's is its declared
size; the dynamic shared array's is its size expression). Each index of a multi-dimensional array is checked
against its own dimension: `t.(0).(17)` in a `(16, 17)` array is reported, not read as `t.(1).(0)`. On a GPU
this reads or corrupts other memory, or faults. The launch stops at the first such access.

Erroneous example (launched with exactly one thread per element, the last thread writes past the end):

```sk
kernel k (out : int32 vector) =
  out.(global_idx + 1) <- global_idx
```

Fixed (guard with the length):

```sk
kernel k (out : int32 vector) (n : int32) =
  if global_idx + 1 < n then out.(global_idx + 1) <- global_idx
```"#,
    },
    Explanation {
        code: "R0005",
        title: "integer division by zero",
        body: r#"A thread divided an integer by zero (`/` or `mod`). CUDA leaves the result undefined (the hardware
gives a garbage value and no error); the interpreter stops the launch and names the thread.

Erroneous example (thread 5 divides by zero):

```sk
kernel k (out : int32 vector) =
  out.(global_idx) <- 100 / (thread_idx_x - 5)
```

Fixed:

```sk
kernel k (out : int32 vector) =
  let d = thread_idx_x - 5 in
  out.(global_idx) <- (if d <> 0 then 100 / d else 0)
```"#,
    },
    Explanation {
        code: "R0006",
        title: "read of uninitialised shared memory",
        body: r#"A thread read a word of shared memory that no thread of its block had written. Shared memory
starts undefined in every block (it holds what an earlier block left, or anything); the interpreter reads it
as 0 and reports it. The launch goes on.

Erroneous example (only the first 32 elements are written; thread 0 sums all 64):

```sk
kernel k (out : int32 vector) =
  let%shared (tile : int32) = 64 in
  if thread_idx_x < 32 then tile.(thread_idx_x) <- thread_idx_x;
  Gpu.block_barrier;
  if thread_idx_x = 0 then begin
    let s = mut 0 in
    for i = 0 to 63 do s := s + tile.(i) done;
    out.(0) <- s
  end
```

Fixed (every element written before the barrier):

```sk
kernel k (out : int32 vector) =
  let%shared (tile : int32) = 64 in
  tile.(thread_idx_x) <- (if thread_idx_x < 32 then thread_idx_x else 0);
  Gpu.block_barrier;
  if thread_idx_x = 0 then begin
    let s = mut 0 in
    for i = 0 to 63 do s := s + tile.(i) done;
    out.(0) <- s
  end
```"#,
    },
    Explanation {
        code: "R0007",
        title: "kernel past the step budget",
        body: r#"A thread executed more instructions than the interpreter's budget (100,000,000 per thread by
default; `skc run --steps N`): the kernel may never end. Typical causes: a loop whose exit condition never
changes, or a thread spinning on a flag that only a later block, or nobody, sets (the interpreter runs one
block at a time, as a GPU with room for one block would: blocks never wait for each other). The report
points at the loop the thread was in.

Erroneous example (thread 3 waits for a flag nobody sets):

```sk
kernel k (flag : int32 vector) (out : int32 vector) =
  if thread_idx_x = 3 then
    while atomic_load_acquire_device flag 0 = 0 do () done;
  out.(global_idx) <- 1
```

Fixed: make sure the loop ends (here, by setting the flag before the launch, or not waiting)."#,
    },
    Explanation {
        code: "R0008",
        title: "shuffle from a lane that does not exist",
        body: r#"A shuffle read a lane that does not exist: in the last warp of a block whose size is not a
multiple of 32, lanes at and above the block's size are absent, and `shfl`, `shfl_down` or `shfl_xor` can
name one of them. CUDA leaves the value undefined; the interpreter reads 0 there (the same for every lane that
reads it) and reports it. The launch goes on.

Erroneous example (a block of 40 threads: the second warp has 8 lanes, and lane 0 reads lane 16):

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  let v = xs.(global_idx) in
  out.(global_idx) <- v + Gpu.shfl_down v 16
```

Fixed: launch blocks of a multiple of 32 threads, or read only existing lanes (`shfl_down` within the
warp's size)."#,
    },
    Explanation {
        code: "R0009",
        title: "dynamic shared array larger than the launch's shared memory",
        body: r#"The kernel's dynamic shared array (a `let%shared` whose size depends on kernel parameters) needs
more bytes than the launch gave (`skc run --shared BYTES`, `LaunchConfig::dynamic_shared_bytes`). On a GPU
the array's end would lie beyond the block's shared memory.

Erroneous example (launched with `--shared 64` and `n = 32`: the array needs 128 bytes):

```sk
kernel k (out : int32 vector) (n : int32) =
  let%shared (buf : int32) = n in
  buf.(thread_idx_x) <- thread_idx_x;
  Gpu.block_barrier;
  out.(global_idx) <- buf.(n - 1 - thread_idx_x)
```

Fixed: launch with `--shared 128` (4 bytes times `n`)."#,
    },
    Explanation {
        code: "R0010",
        title: "named barrier misuse at run time",
        body: r#"A named barrier (`named_barrier id count`, `named_barrier_arrive`) was used in a way the hardware
does not define: an id outside 1..15, a thread count that is not a positive multiple of 32, lanes of one warp
naming different barriers or counts, or warps giving one barrier different counts. The type checker rejects
such constants (E0216); values known only at run time are checked here.

Erroneous example (launched with `count = 48`):

```sk
kernel k (out : int32 vector) (count : int32) =
  named_barrier 1 count;
  out.(global_idx) <- 1
```

Fixed: pass whole warps (`count = 64` for a block of 64)."#,
    },
    Explanation {
        code: "R0011",
        title: "construct the interpreter cannot run",
        body: r#"A thread reached something the interpreter does not run: a device function that returns a `ref`
cell, a builtin it does not implement, or a device-side `launch` whose geometry CUDA would refuse. The launch
stops there. The rest of the program runs normally; docs/interp.md lists what is not modelled.

Example (a function returning a cell):

```text
let cell (x : int32) = ref x
```

Fixed: return the value, not the cell."#,
    },
    Explanation {
        code: "R0012",
        title: "signed integer overflow",
        body: r#"A thread computed an `int32` or `int64` result that does not fit its type: `+`, `-`, `*`, unary
`-`, `/` of the minimum by -1, or `lsl` of a negative value or into the sign bit. Signed overflow is undefined
in the language, as in the CUDA C skc emits (NVRTC optimises on the assumption that it does not happen), so the
GPU may compute anything there. The interpreter wraps, reports it once per place, and goes on.

Erroneous example (the products overflow int32 for large inputs):

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  out.(global_idx) <- xs.(global_idx) * 1000000
```

Fixed (wrapping wanted: compute on uint32, then convert):

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  out.(global_idx) <- int32 (uint32 xs.(global_idx) * 1000000u)
```

See "Integer overflow" in docs/language.md."#,
    },
    Explanation {
        code: "R0013",
        title: "launch breaks the kernel's launch contract",
        body: r#"The kernel declares facts about every launch (`[@block_1d]`, `[@block_multiple M]`,
`[@block_size N]`, `[@launch_bounds T]`), and the convergence analysis accepted it relying on them: a launch
whose block breaks one could reach a barrier or collective in diverged control flow, or read a lane that does
not exist. The interpreter refuses such a launch before any thread runs, as skc-runtime does
(`RuntimeError::LaunchContract`), and names the attribute broken.

Erroneous example (launched with `--block 100`):

```sk
kernel[@block_multiple 32] k (xs : float32 vector) (out : float32 vector) =
  out.(global_idx) <- Gpu.shfl_xor xs.(global_idx) 1
```

Fixed: launch it with a block of 96 or 128 threads, or drop the attribute (and what relies on it).

See "Launch contracts" in docs/language.md."#,
    },
    Explanation {
        code: "R0014",
        title: "assertion failed",
        body: r#"A thread reached `assert c` with `c` false. On the GPU the same thread calls CUDA's `__assertfail`,
which prints the condition, the file and line and the thread, and the launch fails with cudaErrorAssert; the
interpreter stops the launch and reports the thread and the place.

Erroneous example (run with a zero in `xs`):

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  assert (xs.(global_idx) <> 0);
  out.(global_idx) <- 100 / xs.(global_idx)
```

Fixed (the kernel handles the case the assertion excluded):

```sk
kernel k (xs : int32 vector) (out : int32 vector) =
  let x = xs.(global_idx) in
  out.(global_idx) <- if x = 0 then 0 else 100 / x
```"#,
    },
    // --- warnings -------------------------------------------------------------------------------------------
    Explanation {
        code: "W0002",
        title: "unknown attribute ignored",
        body: r#"An attribute on a top-level `let` (`let[@name] ...`) that skc does not know is ignored, with this
warning in case it is misspelt. Known attributes: `sarek.module`, `sarek.kernel`, `inline`, `noinline`,
`device` and `constant_memory`, and `allow` followed by warning codes (`let[@allow W0101] f ...`: those warnings are not reported
inside the item); an `allow` of something that is not a warning code gets this warning too. (Attributes on
supersteps are different: an unknown one is an error, E0005.)

Erroneous example:

```sk
let[@inlne] square (x : float32) = x *. x  (* warning: W0002 *)
```

Fixed:

```sk
let[@inline] square (x : float32) = x *. x
```"#,
    },
    Explanation {
        code: "W0003",
        title: "value discarded",
        body: r#"In `e1; e2` the value of `e1` is thrown away. That is expected when `e1` has type `unit` (a store, a
barrier), and usually a mistake otherwise: a forgotten `<-`, or the old value returned by an atomic. Bind
the value to `_` to discard it on purpose.

Erroneous example:

```sk
kernel k (counter : int32 vector) (out : int32 vector) =
  atomic_add counter 0 1;  (* warning: W0003 *)
  out.(global_idx) <- 1
```

Fixed:

```sk
kernel k (counter : int32 vector) (out : int32 vector) =
  let _ = atomic_add counter 0 1 in
  out.(global_idx) <- 1
```"#,
    },
    Explanation {
        code: "W0004",
        title: "float literal rounds to zero or to a subnormal",
        body: r#"A nonzero float literal too small for its type becomes 0 (below about 1e-45 for float32, 5e-324 for
float64), which is rarely what was written; one below the smallest normal value (1.1754944e-38 for float32,
2.2250738585072014e-308 for float64) becomes a subnormal, which keeps fewer significant digits and is zero
wherever the GPU flushes subnormals to zero (fast-math code, the `_approx` builtins). Write `0.0` if zero is
meant, use a float64 literal (`1e-50d`) for a float64 value, or rescale the computation.

Erroneous example:

```sk
kernel k (out : float32 vector) =
  out.(global_idx) <- 1e-50  (* warning: W0004 *)
```

Fixed:

```sk
kernel k (out : float64 vector) =
  out.(global_idx) <- 1e-50
```"#,
    },
    Explanation {
        code: "W0005",
        title: "an arm of a match that no value reaches",
        body: r#"The arms of a `match` are tried in order, and this arm matches only values an arm before it already
takes (the same constructor again, or any arm after `_ -> ...`), so its body never runs. Remove it, or move it
before the arm that takes its values.

Erroneous example:

```sk
type color = Red | Green | Blue

let code (c : color) : int32 =
  match c with
  | Red -> 1
  | _ -> 0
  | Blue -> 3  (* warning: W0005 *)
```

Fixed:

```sk
type color = Red | Green | Blue

let code (c : color) : int32 =
  match c with
  | Red -> 1
  | Blue -> 3
  | _ -> 0
```"#,
    },
    Explanation {
        code: "W0100",
        title: "register spills in a kernel",
        body: r#"Reported by `skc build` (not `skc check`) after compiling to machine code, at the kernel's name: ptxas had
to spill registers of this kernel to local memory (the label gives the bytes of spill stores and loads and
the register count), which is slow. Common causes are many values live at once, heavy unrolling, and large
local arrays that are kept in registers because every index is known after unrolling. Reduce the live state
(smaller local arrays, fewer unrolled iterations), move large per-thread data to shared memory, or raise
the block's register budget.

Example (256 floats per thread held in registers after unrolling: more than a thread can have):

```text
kernel k (xs : float32 vector) (out : float32 vector) =
  let%local (v : float32) = 256 in
  pragma ["unroll"] (for i = 0 to 255 do v.(i) <- xs.(global_idx * 256 + i) done);
  let s = mut 0.0 in
  pragma ["unroll"] (for i = 0 to 255 do s := s +. v.(i) *. v.(255 - i) done);
  out.(global_idx) <- s
```

Fixed: process the data in chunks that fit (for example 32 elements at a time), or stage it through shared
memory."#,
    },
    Explanation {
        code: "W0101",
        title: "conditional store that could be a predicated commit",
        body: r#"A store under an `if` whose condition is thread-varying, where the other branch keeps the old value (no
`else`, `else ()`, or `else` writing the location's own value back), splits the warp around a memory write:
the threads that take the branch store, the others wait. The same effect without a branch is an
unconditional store of a `select` (a *predicated commit*): `if c then a.(i) <- v` becomes
`a.(i) <- select c v a.(i)`. The language server offers the rewrite as a quick fix; the CLI prints it
under `help`. Uniform, block-uniform and warp-uniform conditions are not reported (the warp does not
split). A branch that only assigns `mut` variables is not reported either: the CUDA compiler already turns
register moves into selects; a `mut` assignment next to a store is rewritten with it.

The rewrite evaluates the new value and reads and writes the location in the threads where the
condition is false too, so skc suggests it only where that provably changes nothing:

- the condition, the index and the new value have no effects (no calls of device functions, atomics or
  assignments): they run at most once either way; and the value uses no builtin whose result depends on
  which lanes run it (`activemask` names fewer lanes under the `if`);
- every element the rewrite reads or writes is already accessed on every path that reaches the `if`
  (in its condition, or earlier, with the same array and an index made of the same immutable
  variables, constants and operators), or has a constant index inside a fixed-size array. So a bound
  check such as `if i < n then a.(i) <- v` is never reported: where `i >= n` the rewrite would run
  out of bounds. A read only on the right of `&&` or `||`, inside a branch or a loop proves nothing;
- integer division or `mod` in the index or the value is only by a non-zero literal (division by zero
  is undefined where the condition is false);
- a global vector or a shared array is written at a thread-varying index (in every context a kernel
  reaches the code in: a device function called once with a uniform offset is not reported) made without
  an operation that maps several values to one (`/`, `mod`, `land`, `lor`, `lsr`, `asr`, `min`, `max`,
  `abs`): a store at a uniform index (`if thread_idx_x = 0 then s.(0) <- v`) or at a folded one
  (`s.(thread_idx_x / 2)`) is never reported. Local arrays, records held in variables and `mut` variables
  are private to the thread. A local array is one declared with `let%local` (or `create_array n Local`),
  or a name for such arrays only (`let b = t in`); an array parameter of a device function is not (its
  caller may pass a shared array), nor is `let b = if c then t else s in` where `s` is shared.

**When the rewrite is offered as an edit.** Where the condition is false, the rewrite writes the element's
old value back. If another thread stores to that element meanwhile, the write-back can undo its store: with
`let i = thread_idx_x / 2 in if thread_idx_x mod 2 = 0 then s.(i) <- old + 1`, the odd lane of each pair
would write `old` over the even lane's `old + 1`. So the rewrite is a machine-applicable edit (the JSON
`suggested_replacement`, the language server's quick fix) only where skc proves that each element is written
by one thread at most:

1. the memory is private to the thread (a local array, a record variable, a `mut` variable); or
2. both branches store to the location (then every thread writes it in the original too); or
3. in a kernel's body, the array is one of its vector parameters or a shared array it declares; the index is
   *injective in the thread and fixed while it runs*: `global_thread_id`, plus or minus an invariant (a
   literal, a constant, a scalar parameter of the kernel, the launch's dimensions, and for a shared array the
   block's index), times a nonzero literal, in a signed integer type, through immutable variables; and every
   use of the array in the kernel is a read of an element or a store at that same index (it is not passed to
   a function, an atomic or `launch`, or aliased, and is not itself another name for an array). Two threads then never write one element. (The rule
   assumes, as the language does, that signed arithmetic does not overflow, and so that the grid has fewer
   than 2^31 threads.)

Elsewhere, the warning's help gives the rewrite with its condition (each element written by one thread),
and no edit: `global_idx` is injective only in a one-dimensional launch, and a loop counter in the index lets
threads in different iterations meet. If threads do share elements, keep the `if` and silence the warning
for one item with the attribute `let[@allow W0101] f ... = ...`, or for a whole run with `skc check -A
W0101` (`--allow`).

Two branches that store to the same location (`if c then a.(i) <- v else a.(i) <- w`) become one store,
`a.(i) <- select c v w`: every thread writes the location either way, so only the two values must be safe
to evaluate in every thread (no effects, element reads proven in bounds as above; the written element
itself counts as accessed). `if c then out.(i) <- a.(i) else out.(i) <- b.(i)` is not reported unless
`a.(i)` and `b.(i)` are both accessed before: the rewrite reads both arrays in every thread.

Several stores in one branch are committed together, the condition bound once (later stores may change
what it reads): `if x > m.(i) then (m.(i) <- x; at := k)` becomes
`(let take = x > m.(i) in m.(i) <- select take x m.(i); at := select take k at)`.

Example:

```sk
kernel running_max (xs : float32 vector) (m : float32 vector) =
  let i = global_idx in
  let x = xs.(i) in
  if x > m.(i) then m.(i) <- x  (* warning: W0101 *)
```

Fixed:

```sk
kernel running_max (xs : float32 vector) (m : float32 vector) =
  let i = global_idx in
  let x = xs.(i) in
  m.(i) <- select (x > m.(i)) x m.(i)
```

Not reported (a bound check: nothing proves `a.(i)` exists where `i >= n`):

```sk
kernel fill (a : float32 vector) (n : int32) =
  let i = global_idx in
  if i < n then a.(i) <- 1.0
```"#,
    },
    Explanation {
        code: "W0102",
        title: "misleading indentation",
        body: r#"The branches of `if` end at the first `;` (as in OCaml): in `if c then a; b`, `b` runs whatever `c` is. A
statement laid out as if the `if` guarded it is reported: one on the line where the `if`'s last branch ends
(`if i < n then out.(i) <- a; out.(i + n) <- b`), or on a later line indented deeper than the line of the `if`.
On a GPU such a store runs in every thread, often out of bounds.

Not reported: a branch closed by `)` or `end` (the layout shows where it ends), a statement at the `if`'s own
indentation, and one after a branch that ends in `return`, `break` or `continue` (it runs only where the branch
was not taken, so it cannot be meant to be in it).

If the statement belongs to the branch, wrap the branch in `begin ... end`. If it does not, put it on its own
line at the `if`'s indentation: that is the suggested edit (the language server's quick fix), which moves the
statement and nothing else, so it never changes what the program does.

Example:

```sk
kernel k (out : float32 vector) (n : int32) =
  let i = global_idx in
  if i < n then
    out.(i) <- 1.0;
    out.(i + n) <- 2.0  (* warning: W0102 *)
```

Fixed (both guarded):

```sk
kernel k (out : float32 vector) (n : int32) =
  let i = global_idx in
  if i < n then begin
    out.(i) <- 1.0;
    out.(i + n) <- 2.0
  end
```"#,
    },
];

pub fn explain(code: &str) -> Option<&'static Explanation> {
    EXPLANATIONS.iter().find(|e| e.code.eq_ignore_ascii_case(code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::{Requirement, ResultUniformity, BUILTINS};
    use crate::codes::CODES;
    use crate::diagnostic::Severity;
    use std::collections::BTreeSet;
    use std::path::Path;

    const LANGUAGE_MD: &str = include_str!("../../../docs/language.md");
    const DIAGNOSTICS_MD: &str = include_str!("../../../docs/diagnostics.md");
    const FROM_CUDA_MD: &str = include_str!("../../../docs/from-cuda.md");

    // --- helpers ------------------------------------------------------------------------------------------

    /// `"E0123"` / `"R0123"` / `"W0123"` string literals in Rust source.
    fn quoted_codes(text: &str, out: &mut BTreeSet<String>) {
        let bytes = text.as_bytes();
        for i in 0..bytes.len().saturating_sub(6) {
            let window = &bytes[i..i + 7];
            if window[0] == b'"'
                && matches!(window[1], b'E' | b'R' | b'W')
                && window[2..6].iter().all(u8::is_ascii_digit)
                && window[6] == b'"'
            {
                out.insert(String::from_utf8_lossy(&window[1..6]).into_owned());
            }
        }
    }

    /// `(* error: CODE *)` / `(* warning: CODE *)` markers: (1-based line, code).
    fn markers(text: &str) -> BTreeSet<(usize, String)> {
        let mut out = BTreeSet::new();
        for (number, line) in text.lines().enumerate() {
            for marker in ["(* error: ", "(* warning: "] {
                let mut rest = line;
                while let Some(i) = rest.find(marker) {
                    rest = &rest[i + marker.len()..];
                    let code: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
                    out.insert((number + 1, code));
                }
            }
        }
        out
    }

    fn visit(dir: &Path, extension: &str, files: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target" && !n.to_string_lossy().starts_with('.')) {
                    visit(&path, extension, files);
                }
            } else if path.extension().is_some_and(|e| e == extension) {
                files.push(path);
            }
        }
    }

    /// The ```sk blocks of a markdown text: (name for messages, source).
    fn sk_blocks(origin: &str, text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut current: Option<(usize, String)> = None;
        for (number, line) in text.lines().enumerate() {
            let fence = line.trim();
            match &mut current {
                None if fence == "```sk" => current = Some((number + 2, String::new())),
                Some((start, source)) if fence == "```" => {
                    out.push((format!("{origin}:{start}"), std::mem::take(source)));
                    current = None;
                }
                Some((_, source)) => {
                    source.push_str(line);
                    source.push('\n');
                }
                None => {}
            }
        }
        assert!(current.is_none(), "{origin}: unclosed ```sk block");
        out
    }

    /// Every ```sk example: the explanation pages, the language reference, the diagnostics guide and the page
    /// for CUDA programmers.
    fn all_examples() -> Vec<(String, String)> {
        let mut out = Vec::new();
        for page in EXPLANATIONS {
            out.extend(sk_blocks(&format!("skc explain {}", page.code), page.body));
        }
        out.extend(sk_blocks("docs/language.md", LANGUAGE_MD));
        out.extend(sk_blocks("docs/diagnostics.md", DIAGNOSTICS_MD));
        let from_cuda = sk_blocks("docs/from-cuda.md", FROM_CUDA_MD);
        assert!(from_cuda.len() >= 6, "found the examples of docs/from-cuda.md ({})", from_cuda.len());
        out.extend(from_cuda);
        out
    }

    // --- the pages ------------------------------------------------------------------------------------------

    #[test]
    fn explain_is_case_insensitive() {
        assert_eq!(explain("e0001").map(|e| e.code), Some("E0001"));
        assert_eq!(explain("E0001").map(|e| e.code), Some("E0001"));
        assert_eq!(explain("w0003").map(|e| e.code), Some("W0003"));
        assert!(explain("E9999").is_none());
        assert!(explain("").is_none());
    }

    #[test]
    fn pages_are_well_formed() {
        let mut seen = BTreeSet::new();
        for page in EXPLANATIONS {
            let code = page.code.as_bytes();
            assert!(
                code.len() == 5 && matches!(code[0], b'E' | b'R' | b'W') && code[1..].iter().all(u8::is_ascii_digit),
                "malformed code {}",
                page.code
            );
            assert!(seen.insert(page.code), "two pages for {}", page.code);
            assert!(!page.title.is_empty() && !page.title.ends_with('.'), "{}: title", page.code);
            assert!(!page.body.starts_with('\n') && !page.body.trim().is_empty(), "{}: body", page.code);
            assert!(page.body.contains("```"), "{}: no example", page.code);
        }
        let codes: Vec<&str> = EXPLANATIONS.iter().map(|e| e.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_by_key(|c| (c.starts_with('W'), *c));
        assert_eq!(codes, sorted, "pages are kept in code order (errors, run-time reports, then warnings)");
    }

    /// Every code the compiler can emit (a `"E0123"` literal in any crate of `compiler/`) or that a UI test
    /// expects has a page.
    #[test]
    fn every_code_used_has_a_page() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut sources = Vec::new();
        visit(&manifest.join(".."), "rs", &mut sources);
        assert!(sources.iter().any(|p| p.ends_with("convergence/walk.rs")), "scanned the compiler sources");
        let mut used = BTreeSet::new();
        for path in &sources {
            if path.ends_with("core/src/explain.rs") || path.ends_with("core/src/codes.rs") {
                continue;
            }
            let text = std::fs::read_to_string(path).expect("readable source");
            quoted_codes(&text, &mut used);
        }
        let mut ui = Vec::new();
        visit(&manifest.join("../../tests/ui"), "sk", &mut ui);
        for path in &ui {
            let text = std::fs::read_to_string(path).expect("readable test");
            used.extend(markers(&text).into_iter().map(|(_, code)| code));
        }
        for code in ["E0001", "E0002", "E0003", "E0004", "E0005", "E0100", "E0211"] {
            assert!(used.contains(code), "the scan missed {code}");
        }
        let missing: Vec<&String> = used.iter().filter(|c| explain(c).is_none()).collect();
        assert!(missing.is_empty(), "codes without an explanation page: {missing:?}");
    }

    /// The pages are the codes of the table (`codes::CODES`), in its order.
    #[test]
    fn every_code_of_the_table_has_a_page_and_no_page_is_without_one() {
        let pages: Vec<&str> = EXPLANATIONS.iter().map(|e| e.code).collect();
        let table: Vec<&str> = CODES.iter().map(|c| c.code).collect();
        assert_eq!(pages, table, "explain.rs's pages and codes::CODES");
    }

    /// docs/diagnostics.md's table has one row per code, with the severity and stages of `codes::CODES`, in its
    /// order.
    #[test]
    fn diagnostics_md_lists_every_code_as_the_table_describes_it() {
        let rows: Vec<&str> =
            DIAGNOSTICS_MD.lines().filter(|l| ["| `E", "| `R", "| `W"].iter().any(|p| l.starts_with(p))).collect();
        assert_eq!(rows.len(), CODES.len(), "docs/diagnostics.md has one row per code");
        for (row, code) in rows.iter().zip(CODES) {
            let stages: Vec<&str> = code.stages.iter().map(|s| s.doc_name()).collect();
            let expected = format!("| `{}` | {} | {} |", code.code, code.severity.as_str(), stages.join(", "));
            assert!(
                row.starts_with(&expected),
                "docs/diagnostics.md: expected a row starting `{expected}`, found `{row}`"
            );
        }
    }

    /// Every code a UI test expects is in the table with the severity the test names.
    #[test]
    fn ui_expectations_name_codes_of_the_table() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut ui = Vec::new();
        visit(&manifest.join("../../tests/ui"), "sk", &mut ui);
        assert!(ui.len() > 100, "scanned the UI tests");
        for path in &ui {
            let text = std::fs::read_to_string(path).expect("readable test");
            for line in text.lines() {
                for (marker, severity) in [("(* error: ", Severity::Error), ("(* warning: ", Severity::Warning)] {
                    for (i, _) in line.match_indices(marker) {
                        let code = &line[i + marker.len()..].get(..5).unwrap_or("");
                        let known = crate::codes::lookup(code).map(|c| c.severity);
                        assert_eq!(known, Some(severity), "{}: `{line}`", path.display());
                    }
                }
            }
        }
    }

    // --- the builtin table of docs/language.md ------------------------------------------------------------

    fn requirement(r: Requirement) -> &'static str {
        match r {
            Requirement::None => "none",
            Requirement::BlockConverged => "block-converged",
            Requirement::WarpConverged => "warp-converged",
        }
    }

    fn result(r: ResultUniformity) -> &'static str {
        match r {
            ResultUniformity::Uniform => "uniform",
            ResultUniformity::BlockUniform => "block-uniform",
            ResultUniformity::WarpUniform => "warp-uniform",
            ResultUniformity::ThreadVarying => "thread-varying",
            ResultUniformity::OfArguments => "of its arguments",
            ResultUniformity::WarpUniformUnderControl => "of the control flow, at least warp-uniform",
            ResultUniformity::Broadcast => {
                "of `v`, at worst warp-uniform, if `src` is a constant multiple of 32 (lane 0); else thread-varying"
            }
            ResultUniformity::OwnOrLowerLane => "of `v` if it is at most warp-uniform, else thread-varying",
        }
    }

    /// Sections of the table: a title and the first builtin of the section (in `BUILTINS` order).
    const SECTIONS: &[(&str, &str)] = &[
        ("Thread and block indices", "thread_idx_x"),
        ("Synchronisation", "block_barrier"),
        ("Warp collectives, active mask, uniform load", "shfl"),
        ("Atomics (return the old value)", "atomic_add"),
        ("Ordered, scoped atomics", "atomic_load_relaxed_block"),
        ("Fences and sleep", "fence_block"),
        ("Programmatic dependent launch", "grid_dependency_sync"),
        ("Device-side launch", "launch"),
        ("Data select", "select"),
        ("Math", "sqrt"),
        ("Float constants", "infinity"),
        ("Conversions", "float32"),
        ("Vector types", "make_float2"),
    ];

    /// The builtin tables as docs/language.md must show them (between the `builtins:begin/end` markers).
    fn builtin_tables() -> String {
        let mut out = String::new();
        for b in BUILTINS {
            if let Some((title, _)) = SECTIONS.iter().find(|(_, first)| *first == b.name) {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&format!("#### {title}\n\n"));
                out.push_str("| Builtin | Sarek aliases | Type | Requires | Result | Description |\n");
                out.push_str("|---|---|---|---|---|---|\n");
            }
            let aliases: Vec<String> = b.aliases.iter().map(|a| format!("`{a}`")).collect();
            let mut doc = b.doc.replace('|', "\\|");
            if b.writes_first_arg {
                doc.push_str("; writes its array argument");
            }
            out.push_str(&format!(
                "| `{}` | {} | `{}` | {} | {} | {} |\n",
                b.name,
                aliases.join(", "),
                b.signature(),
                requirement(b.requirement),
                result(b.result),
                doc
            ));
        }
        out
    }

    #[test]
    fn language_md_lists_every_builtin() {
        assert_eq!(BUILTINS.first().map(|b| b.name), Some(SECTIONS[0].1), "the first section starts the table");
        for (_, first) in SECTIONS {
            assert!(BUILTINS.iter().any(|b| b.name == *first), "section start `{first}` is not a builtin");
        }
        let expected = builtin_tables();
        let begin = "<!-- builtins:begin (generated from builtins.rs; the explain tests check it) -->\n";
        let end = "<!-- builtins:end -->";
        let start = LANGUAGE_MD.find(begin).expect("docs/language.md has the builtins:begin marker") + begin.len();
        let stop = LANGUAGE_MD[start..].find(end).expect("docs/language.md has the builtins:end marker") + start;
        let actual = LANGUAGE_MD[start..stop].trim();
        assert!(
            actual == expected.trim(),
            "the builtin tables of docs/language.md are out of date; replace them with:\n\n{expected}"
        );
        for b in BUILTINS {
            for name in std::iter::once(&b.name).chain(b.aliases) {
                assert!(LANGUAGE_MD.contains(&format!("`{name}`")), "docs/language.md does not mention `{name}`");
            }
        }
    }

    // --- the examples -----------------------------------------------------------------------------------------

    /// Codes only the parser (and module loading) reports: their markers must be matched already by parsing.
    const SYNTAX_CODES: &[&str] =
        &["E0005", "E0100", "E0101", "E0102", "E0103", "E0104", "E0105", "E0106", "E0107", "E0211", "W0002"];

    /// Every ```sk example parses as its markers say: each syntax error it has is expected, and each expected
    /// syntax error is reported on its line.
    #[test]
    fn examples_parse_as_marked() {
        let examples = all_examples();
        assert!(examples.len() > 60, "found the examples ({})", examples.len());
        let mut failures = Vec::new();
        for (origin, source) in &examples {
            let (sources, _module, _files, diagnostics) =
                crate::driver::parse_all("example.sk", source, &crate::driver::NoModules);
            let root = sources.file(crate::source::FileId(0));
            let actual: BTreeSet<(usize, String)> = diagnostics
                .iter()
                .map(|d| (root.line_col(d.primary_span().start as usize).0 + 1, d.code.to_string()))
                .collect();
            let expected = markers(source);
            let unexpected: Vec<_> = actual.difference(&expected).collect();
            let missing: Vec<_> =
                expected.iter().filter(|e| SYNTAX_CODES.contains(&e.1.as_str()) && !actual.contains(e)).collect();
            if !unexpected.is_empty() || !missing.is_empty() {
                failures.push(format!("{origin}: unexpected {unexpected:?}, missing {missing:?}\n{source}"));
            }
        }
        assert!(failures.is_empty(), "examples whose syntax verdict is wrong:\n{}", failures.join("\n"));
    }

    /// Every ```sk example gets exactly the verdict its markers say from the whole front end (type checker and
    /// convergence analysis included), as the UI tests do.
    #[test]
    fn examples_have_their_marked_verdicts() {
        let mut failures = Vec::new();
        for (origin, source) in all_examples() {
            let checked = crate::driver::check(
                "example.sk",
                &source,
                &crate::driver::NoModules,
                &crate::driver::CheckOptions::default(),
            );
            let root = checked.sources.file(checked.root);
            let actual: BTreeSet<(usize, String)> = checked
                .diagnostics
                .iter()
                .filter(|d| d.severity != crate::Severity::Note && d.primary_span().file == checked.root)
                .map(|d| (root.line_col(d.primary_span().start as usize).0 + 1, d.code.to_string()))
                .collect();
            let expected = markers(&source);
            if actual != expected {
                failures.push(format!("{origin}: expected {expected:?}, got {actual:?}\n{source}"));
            }
        }
        assert!(failures.is_empty(), "examples whose verdict is wrong:\n{}", failures.join("\n"));
    }
}
