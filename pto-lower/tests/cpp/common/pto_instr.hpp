// pto-isa's instruction header: in pto-isa it does not compile on its own, only after
// <pto/pto-inst.hpp> (found compiling emitted kernels against pto-isa 3186c381 with
// -D__CPU_SIM). The model keeps that rule.
#pragma once
#ifndef PTO_MODEL_ENTRY_INCLUDED
#error "include <pto/pto-inst.hpp> before \"common/pto_instr.hpp\""
#endif
