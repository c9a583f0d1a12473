// The entry header of the pto-lower test model of pto-isa (see ../pto_decls.hpp). pto-isa's
// own entry header has this name and must come first; `common/pto_instr.hpp` checks that.
#pragma once
#define PTO_MODEL_ENTRY_INCLUDED 1
#include "../pto_decls.hpp"
