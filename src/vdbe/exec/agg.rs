//! Function calls: scalar `Function` (`r[P3] = f(r[P2..P2+P5])`),
//! aggregate `AggStep` (accumulator in register P3) and `AggFinal`
//! (accumulator P1 replaced by the final value). No I/O.

use super::{reg, Flow};
use crate::error::Result;
use crate::value::Value;
use crate::vdbe::func::{FuncKind, FunctionContext};
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::value_ops::check_length;
use crate::vdbe::{ConnState, Vm};

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let P4::Func(def) = &insn.p4 else {
        return Err(super::internal("function opcode without a function"));
    };
    let max_length = env.max_length;
    let mut prng_state = env.prng;
    let mut prng = |buf: &mut [u8]| {
        for b in buf.iter_mut() {
            prng_state ^= prng_state << 13;
            prng_state ^= prng_state >> 7;
            prng_state ^= prng_state << 17;
            *b = (prng_state >> 24) as u8;
        }
    };
    let (first, n) = match insn.opcode {
        Opcode::AggFinal | Opcode::AggValue => (0, 0),
        _ => (insn.p2, insn.p5 as i32),
    };
    let args: Vec<Value> = (0..n).map(|i| reg(vm, first + i).clone()).collect();
    let subtypes: Vec<u32> = (0..n).map(|i| vm.regs.get((first + i) as usize).map_or(0, |r| r.subtype)).collect();
    let mut now = vm.now_jd_ms;
    let mut ctx = FunctionContext {
        last_insert_rowid: env.last_insert_rowid,
        changes: env.changes,
        total_changes: env.total_changes,
        case_sensitive_like: env.case_sensitive_like,
        now_jd_ms: &mut now,
        arg_subtypes: &subtypes,
        result_subtype: 0,
        prng: &mut prng,
        pure_context: if insn.opcode == Opcode::Function { crate::vdbe::func::pure_context_name(insn.p1) } else { None },
        func_name: &def.name,
    };
    let outcome = match (insn.opcode, &def.kind) {
        (Opcode::Function, FuncKind::Scalar(f)) => {
            let v = f.call(&mut ctx, &args)?;
            check_length(&v, max_length)?;
            let st = ctx.result_subtype;
            let r = &mut vm.regs[insn.p3 as usize];
            r.value = v;
            r.subtype = st;
            Ok(Flow::Next)
        }
        (Opcode::AggStep, FuncKind::Aggregate(f)) => {
            let acc = insn.p3 as usize;
            let state = vm.aggs.entry(acc).or_insert_with(|| f.start());
            state.step(&mut ctx, &args)?;
            Ok(Flow::Next)
        }
        (Opcode::AggFinal, FuncKind::Aggregate(f)) => {
            let acc = insn.p1 as usize;
            let mut state = vm.aggs.remove(&acc).unwrap_or_else(|| f.start());
            let v = state.finalize(&mut ctx)?;
            check_length(&v, max_length)?;
            vm.regs[acc].set(v);
            Ok(Flow::Next)
        }
        (Opcode::AggValue, FuncKind::Aggregate(f)) => {
            let acc = insn.p1 as usize;
            let state = vm.aggs.entry(acc).or_insert_with(|| f.start());
            let v = state.value(&mut ctx)?;
            check_length(&v, max_length)?;
            vm.regs[insn.p3 as usize].set(v);
            Ok(Flow::Next)
        }
        _ => Err(super::internal("function kind does not match the opcode")),
    };
    drop(ctx);
    vm.now_jd_ms = now;
    env.prng = prng_state;
    outcome
}
