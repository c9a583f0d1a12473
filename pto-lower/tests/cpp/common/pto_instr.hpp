// Test stand-in for the PTO-ISA header the emitted C++ includes: forwards to pto_decls.hpp.
#pragma once
#include "../pto_decls.hpp"
