//! Function calls: scalar `Function` (`r[P3] = f(r[P2..P2+P5])`),
//! aggregate `AggStep` (accumulator in register P3; with P1, `r[P1]` is
//! set to whether the row is now the one the aggregate's value comes
//! from, for bare columns beside min()/max()), `AggInverse` (the row
//! leaves a moving window frame: the function's xInverse), `AggValue`
//! (the current value into P3) and `AggFinal` (accumulator P1 replaced by
//! the final value; with P5 = 1, at the end of a window partition, the
//! value and any error are discarded, as SQLite discards them). No I/O.

use super::Flow;
use crate::error::Result;
use crate::value::Value;
use crate::vdbe::func::{FuncKind, FunctionContext};
use crate::vdbe::host::VmHost;
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::{ConnState, Vm};

/// Where a function call finds the connection state: the interpreter's
/// own, or the whole connection lent to an application's function (which
/// may run SQL on it, see `vdbe::host`).
enum Caller<'a> {
    State(&'a mut ConnState),
    Lent(&'a mut dyn VmHost),
}

impl Caller<'_> {
    #[inline(always)]
    fn state(&mut self) -> &mut ConnState {
        match self {
            Caller::State(s) => s,
            Caller::Lent(h) => h.state(),
        }
    }
}

/// Whether `insn` calls an application's function, which is lent the
/// connection ([`exec_lent`]); ringlite's own functions never use it.
#[inline]
pub(super) fn lends(insn: &Insn) -> bool {
    matches!(&insn.p4, P4::Func(def) if !def.flags.builtin)
}

/// A function opcode calling an application's function, lent the
/// connection.
pub(super) fn exec_lent(vm: &mut Vm, insn: &Insn, host: &mut dyn VmHost) -> Result<Flow> {
    let P4::Func(def) = &insn.p4 else {
        return Err(super::internal("function opcode without a function"));
    };
    host.state().lent_depth += 1;
    let r = if insn.p5 <= 1 && matches!(insn.opcode, Opcode::Function | Opcode::AggStep) {
        call_few(vm, insn, def, Caller::Lent(&mut *host))
    } else if insn.p5 as usize <= SMALL_ARGS && matches!(insn.opcode, Opcode::Function | Opcode::AggStep) {
        call_small(vm, insn, def, Caller::Lent(&mut *host))
    } else {
        call_general(vm, insn, def, Caller::Lent(&mut *host))
    };
    let st = host.state();
    debug_assert!(st.lent_depth > 0);
    st.lent_depth -= 1;
    r
}

// (Inline, with `call_few`: the interpreter loop calls the function
// directly, once or twice per row of an aggregate scan.)
#[inline]
pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let P4::Func(def) = &insn.p4 else {
        return Err(super::internal("function opcode without a function"));
    };
    if matches!(insn.opcode, Opcode::Function | Opcode::AggStep) {
        if insn.p5 <= 1 {
            return call_few(vm, insn, def, Caller::State(env));
        }
        if insn.p5 as usize <= SMALL_ARGS {
            return call_small(vm, insn, def, Caller::State(env));
        }
    }
    call_general(vm, insn, def, Caller::State(env))
}

/// `SQLITE_LIMIT_LENGTH` against a function's result. A few of SQLite's
/// built-ins ask for room for a terminator beside the result and fail one
/// byte short of the limit: `upper`, `lower` and `hex` allocate n+1 bytes,
/// `quote`, `group_concat` and `string_agg` build the text in a string
/// accumulator that keeps a byte for its NUL (`quote` of a blob asks for
/// one more).
#[inline(always)]
fn check_result(v: &Value, def: &crate::vdbe::func::FuncDef, max_length: i64) -> Result<()> {
    let len = match v {
        Value::Text(b) | Value::Blob(b) => b.len() as i64,
        Value::ZeroBlob(n) => *n as i64,
        _ => return Ok(()),
    };
    if len + 2 <= max_length {
        return Ok(());
    }
    let slack = if !def.flags.builtin {
        0
    } else {
        match def.name.as_str() {
            "quote" if matches!(v, Value::Text(t) if t.first() == Some(&b'X')) => 2,
            "upper" | "lower" | "hex" | "quote" | "group_concat" | "string_agg" => 1,
            _ => 0,
        }
    };
    if len + slack > max_length {
        return Err(crate::error::Error::too_big());
    }
    Ok(())
}

/// Any function opcode: arguments moved out of their registers into a
/// list for the call, `AggFinal` and `AggValue`.
#[inline(never)]
fn call_general(vm: &mut Vm, insn: &Insn, def: &crate::vdbe::func::FuncDef, mut caller: Caller<'_>) -> Result<Flow> {
    let env = caller.state();
    let max_length = env.max_length;
    let mut prng = crate::util::prng::fill;
    let (first, n) = match insn.opcode {
        Opcode::AggFinal | Opcode::AggValue => (0, 0),
        _ => (insn.p2, insn.p5 as i32),
    };
    // The arguments are moved out of their registers for the call and
    // put back right after it: no copy of text or blobs per call.
    let mut args = std::mem::take(&mut vm.call_args);
    args.clear();
    args.extend((0..n).map(|i| vm.regs.get_mut((first + i) as usize).map_or(Value::Null, |r| std::mem::take(&mut r.value))));
    // (On the stack for the usual few arguments.)
    let subtype_of = |i: i32| vm.regs.get((first + i) as usize).map_or(0, |r| r.subtype);
    let bound = |i: i32| vm.regs.get((first + i) as usize).is_some_and(|r| r.from_bind);
    let mut few_subtypes = [0u32; 8];
    let mut few_bound = [false; 8];
    let (many_subtypes, many_bound): (Vec<u32>, Vec<bool>);
    let (subtypes, from_bind): (&[u32], &[bool]) = if n as usize <= few_subtypes.len() {
        for i in 0..n {
            few_subtypes[i as usize] = subtype_of(i);
            few_bound[i as usize] = bound(i);
        }
        (&few_subtypes[..n.max(0) as usize], &few_bound[..n.max(0) as usize])
    } else {
        many_subtypes = (0..n).map(subtype_of).collect();
        many_bound = (0..n).map(bound).collect();
        (&many_subtypes, &many_bound)
    };
    let mut now = vm.now_jd_ms;
    let mut ctx = function_context(env, insn, &def.name, &mut now, (subtypes, from_bind), &mut prng);
    if let Caller::Lent(h) = &mut caller {
        ctx.host = Some(&mut **h);
    }
    let outcome = match (insn.opcode, &def.kind) {
        (Opcode::Function, FuncKind::Scalar(f)) => {
            let v = f.call(&mut ctx, &args);
            restore_args(&mut vm.regs, first, &mut args);
            let v = v?;
            check_result(&v, def, max_length)?;
            let st = ctx.result_subtype;
            let r = &mut vm.regs[insn.p3 as usize];
            r.value = v;
            r.subtype = st;
            r.from_bind = false;
            Ok(Flow::Next)
        }
        (Opcode::AggStep, FuncKind::Aggregate(f)) => {
            let acc = insn.p3 as usize;
            let state = vm.aggs.get_or_start(acc, || f.start());
            let r = if insn.p1 > 0 { step_choosing(state.as_mut(), &mut ctx, &args) } else { state.step(&mut ctx, &args).map(|_| false) };
            restore_args(&mut vm.regs, first, &mut args);
            let chosen = r?;
            if insn.p1 > 0 {
                vm.regs[insn.p1 as usize].set(Value::Integer(chosen as i64));
            }
            Ok(Flow::Next)
        }
        (Opcode::AggInverse, FuncKind::Aggregate(f)) => {
            let acc = insn.p3 as usize;
            let state = vm.aggs.get_or_start(acc, || f.start());
            let r = state.inverse(&mut ctx, &args);
            restore_args(&mut vm.regs, first, &mut args);
            r.map(|()| Flow::Next)
        }
        (Opcode::AggFinal, FuncKind::Aggregate(_)) if insn.p5 == 1 => {
            // The end of a window partition: the function may release what
            // it holds; its value (and error) are not used.
            let acc = insn.p1 as usize;
            if let Some(mut state) = vm.aggs.take(acc) {
                let _ = state.finalize(&mut ctx);
            }
            vm.regs[acc].set(Value::Null);
            Ok(Flow::Next)
        }
        (Opcode::AggFinal, FuncKind::Aggregate(f)) => {
            let acc = insn.p1 as usize;
            let mut state = vm.aggs.take(acc).unwrap_or_else(|| f.start());
            let v = state.finalize(&mut ctx)?;
            check_result(&v, def, max_length)?;
            vm.regs[acc].set(v);
            Ok(Flow::Next)
        }
        (Opcode::AggValue, FuncKind::Aggregate(f)) => {
            let acc = insn.p1 as usize;
            let state = vm.aggs.get_or_start(acc, || f.start());
            let v = state.value(&mut ctx)?;
            check_result(&v, def, max_length)?;
            vm.regs[insn.p3 as usize].set(v);
            Ok(Flow::Next)
        }
        _ => Err(super::internal("function kind does not match the opcode")),
    };
    restore_args(&mut vm.regs, first, &mut args);
    vm.call_args = args;
    vm.now_jd_ms = now;
    outcome
}

/// Put call arguments taken from registers `first..` back (a no-op once
/// they are back: `args` is left empty).
fn restore_args(regs: &mut [crate::vdbe::register::Register], first: i32, args: &mut Vec<Value>) {
    for (i, v) in args.drain(..).enumerate() {
        if let Some(r) = regs.get_mut(first as usize + i) {
            r.value = v;
        }
    }
}

/// A step that tells whether the row is now the aggregate's chosen one:
/// as the state says, or else when it had no value (NULL) before or its
/// value changed (compared as `IS NOT`, without collation).
fn step_choosing(state: &mut dyn crate::vdbe::func::AggregateState, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<bool> {
    if state.tells_choice() {
        return state.step_choosing(ctx, args);
    }
    let before = state.value(ctx)?;
    state.step(ctx, args)?;
    if before.is_null() {
        return Ok(true);
    }
    let after = state.value(ctx)?;
    Ok(crate::value::compare::compare_values(after.as_ref(), before.as_ref(), None) != std::cmp::Ordering::Equal)
}

/// `Function` or `AggStep` with no or one argument (length(x), count(*),
/// sum(x), ...): the argument is passed from its register as it is, with
/// no list to fill and drain per row.
#[inline(always)]
fn call_few(vm: &mut Vm, insn: &Insn, def: &crate::vdbe::func::FuncDef, mut caller: Caller<'_>) -> Result<Flow> {
    let env = caller.state();
    let max_length = env.max_length;
    let n = insn.p5 as usize;
    let arg_reg = (n == 1).then_some(insn.p2 as usize).filter(|&r| r < vm.regs.len());
    let subtype = [arg_reg.map_or(0, |r| vm.regs[r].subtype)];
    let from_bind = [arg_reg.is_some_and(|r| vm.regs[r].from_bind)];
    let missing = [Value::Null];
    // The argument is read where it is (the register file and the
    // aggregate states are separate fields of the VM).
    let args: &[Value] = match arg_reg {
        Some(r) => std::slice::from_ref(&vm.regs[r].value),
        None => &missing[..n],
    };
    let mut prng = crate::util::prng::fill;
    let mut now = vm.now_jd_ms;
    let mut ctx = function_context(env, insn, &def.name, &mut now, (&subtype[..n], &from_bind[..n]), &mut prng);
    if let Caller::Lent(h) = &mut caller {
        ctx.host = Some(&mut **h);
    }
    match (insn.opcode, &def.kind) {
        (Opcode::Function, FuncKind::Scalar(f)) => {
            let v = f.call(&mut ctx, args);
            let subtype = ctx.result_subtype;
            vm.now_jd_ms = now;
            let r = &mut vm.regs[insn.p3 as usize];
            // (An integer, the usual result of a per-row function, is
            // written as a number: no drop and no whole-value copy.)
            match v? {
                Value::Integer(i) => r.set_int(i),
                v => {
                    check_result(&v, def, max_length)?;
                    r.value = v;
                }
            }
            r.subtype = subtype;
            r.from_bind = false;
        }
        (Opcode::AggStep, FuncKind::Aggregate(f)) => {
            let state = vm.aggs.get_or_start(insn.p3 as usize, || f.start());
            let r = if insn.p1 > 0 { step_choosing(state.as_mut(), &mut ctx, args) } else { state.step(&mut ctx, args).map(|_| false) };
            vm.now_jd_ms = now;
            let chosen = r?;
            if insn.p1 > 0 {
                vm.regs[insn.p1 as usize].set_int(chosen as i64);
            }
        }
        _ => return Err(super::internal("function kind does not match the opcode")),
    }
    Ok(Flow::Next)
}

/// Most arguments [`call_small`] takes (LIKE, GLOB, substr, instr, ...).
const SMALL_ARGS: usize = 4;

/// `Function` or `AggStep` with 2 to [`SMALL_ARGS`] arguments: they are
/// moved out of their registers into an array on the stack for the call
/// and back right after it (no list filled and drained per row, as
/// [`call_general`] does for any count).
#[inline(never)]
fn call_small(vm: &mut Vm, insn: &Insn, def: &crate::vdbe::func::FuncDef, mut caller: Caller<'_>) -> Result<Flow> {
    let env = caller.state();
    let max_length = env.max_length;
    let first = insn.p2.max(0) as usize;
    // (Registers past the file read as NULL, as `call_general` gives them.)
    let n = (insn.p5 as usize).min(SMALL_ARGS);
    debug_assert!((2..=SMALL_ARGS).contains(&n), "call_small with {n} arguments");
    let mut args: [Value; SMALL_ARGS] = Default::default();
    let mut subtypes = [0u32; SMALL_ARGS];
    let mut from_bind = [false; SMALL_ARGS];
    for i in 0..n {
        if let Some(r) = vm.regs.get_mut(first + i) {
            args[i] = std::mem::take(&mut r.value);
            subtypes[i] = r.subtype;
            from_bind[i] = r.from_bind;
        }
    }
    let mut prng = crate::util::prng::fill;
    let mut now = vm.now_jd_ms;
    let mut ctx = function_context(env, insn, &def.name, &mut now, (&subtypes[..n], &from_bind[..n]), &mut prng);
    if let Caller::Lent(h) = &mut caller {
        ctx.host = Some(&mut **h);
    }
    let outcome = match (insn.opcode, &def.kind) {
        (Opcode::Function, FuncKind::Scalar(f)) => f.call(&mut ctx, &args[..n]).map(Some),
        (Opcode::AggStep, FuncKind::Aggregate(f)) => {
            let state = vm.aggs.get_or_start(insn.p3 as usize, || f.start());
            let r = if insn.p1 > 0 { step_choosing(state.as_mut(), &mut ctx, &args[..n]) } else { state.step(&mut ctx, &args[..n]).map(|_| false) };
            r.map(|chosen| Some(Value::Integer(chosen as i64)))
        }
        _ => Err(super::internal("function kind does not match the opcode")),
    };
    let subtype = ctx.result_subtype;
    vm.now_jd_ms = now;
    // The arguments go back first, whatever the outcome.
    for (i, v) in args.iter_mut().take(n).enumerate() {
        if let Some(r) = vm.regs.get_mut(first + i) {
            r.value = std::mem::take(v);
        }
    }
    // Every argument is NULL again (taken back, or never filled): nothing
    // to drop, and no out-of-line drop of the array per call.
    debug_assert!(args.iter().all(|v| matches!(v, Value::Null)));
    std::mem::forget(args);
    let v = outcome?;
    match (insn.opcode, v) {
        (Opcode::Function, Some(v)) => {
            let r = &mut vm.regs[insn.p3 as usize];
            match v {
                Value::Integer(i) => r.set_int(i),
                v => {
                    check_result(&v, def, max_length)?;
                    r.value = v;
                }
            }
            r.subtype = subtype;
            r.from_bind = false;
        }
        (_, Some(Value::Integer(chosen))) if insn.p1 > 0 => vm.regs[insn.p1 as usize].set_int(chosen),
        _ => {}
    }
    Ok(Flow::Next)
}

/// The context a function called by `insn` sees; `(arg_subtypes,
/// arg_from_bind)` describe its arguments.
fn function_context<'a>(
    env: &ConnState,
    insn: &Insn,
    name: &'a str,
    now_jd_ms: &'a mut Option<i64>,
    (arg_subtypes, arg_from_bind): (&'a [u32], &'a [bool]),
    prng: &'a mut dyn FnMut(&mut [u8]),
) -> FunctionContext<'a> {
    FunctionContext {
        last_insert_rowid: env.last_insert_rowid,
        changes: env.changes,
        total_changes: env.total_changes,
        case_sensitive_like: env.settings.case_sensitive_like,
        now_jd_ms,
        clock: env.io.has_clock().then(|| env.io.backend().clone()),
        arg_subtypes,
        arg_from_bind,
        result_subtype: 0,
        prng,
        host: None,
        pure_context: if insn.opcode == Opcode::Function { crate::vdbe::func::pure_context_name(insn.p1) } else { None },
        func_name: name,
        max_like_pattern: env.max_like_pattern,
    }
}
