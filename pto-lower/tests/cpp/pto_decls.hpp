// A model of pto-isa's C++ API for pto-lower's tests: the API's shape and its static rules,
// plus a CPU implementation of the instruction subset pto-lower emits, so that an emitted
// kernel can be compiled (`-fsyntax-only` checks the rules) and run (the model computes
// what the instructions mean and stops at a broken runtime rule).
//
// Written for pto-rs from pto-isa's public documentation (docs/isa/*.md,
// docs/coding/Tile.md, docs/coding/GlobalTensor.md) and from compiling emitted kernels
// against pto-isa 3186c381 in its CPU simulation mode; `shared/spec/pto-isa.md` (sections 5,
// 6 and 9) lists the facts. No pto-isa code is copied. Each rule says where it comes from.
//
// The target is chosen with -DPTO_TARGET_A2A3 (the default) or -DPTO_TARGET_A5.
// Define PTO_MODEL_TRACE to print each instruction as it runs.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#define __global__
#define AICORE
#define __gm__

#if !defined(PTO_TARGET_A2A3) && !defined(PTO_TARGET_A5)
#define PTO_TARGET_A2A3 1
#endif

namespace pto {

// docs/coding/Tile.md: a valid dimension given as DYNAMIC is set at run time.
constexpr int DYNAMIC = -1;

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling };
enum class BLayout { RowMajor, ColMajor };
enum class SLayout { NoneBox, RowMajor, ColMajor };
// pto-isa.md TFILLPAD: a tile type's pad: Zero, Max (+inf, or the largest integer), Min
// (-inf, or the smallest integer), or a custom fp32 value made with `PadValueCustom(v)`.
enum class PadValue : uint64_t { Null = 0, Zero = 1, Max = 2, Min = 3, CustomBase = 0x100000000ULL };
constexpr PadValue PadValueCustom(float v) {
  return static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) | __builtin_bit_cast(uint32_t, v));
}
enum class RoundMode { CAST_NONE, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };
enum class Layout { ND, DN, NZ };
// pto-isa.md TSTORE: the atomic mode of a store (`TSTORE<Tile, Global, AtomicType::AtomicAdd>`).
enum class AtomicType { AtomicNone, AtomicAdd };

// fp16 and bf16 are 2-byte types, as in pto-isa (tile sizes depend on it); the model
// converts through float with round-to-nearest-even.
namespace model {
inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t to_half_bits(float f) {
  const uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
  if (a >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds past the largest half
  if (a < 0x38800000u) {                                    // subnormal half (or zero)
    const float r = float_of(a) + 0.5f;                     // the float's rounding does RNE
    return uint16_t(sign | (bits_of(r) - bits_of(0.5f)));
  }
  const uint32_t m = a + 0xc8000fffu + ((a >> 13) & 1u);  // rebias and round to even
  return uint16_t(sign | (m >> 13));
}
inline float from_half_bits(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) return float_of(sign | bits_of(float(m) * (1.0f / 16777216.0f)));
  if (e == 31) return float_of(sign | 0x7f800000u | (m << 13));
  return float_of(sign | ((e + 112) << 23) | (m << 13));
}
inline uint16_t to_bf16_bits(float f) {
  const uint32_t u = bits_of(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
}  // namespace model

struct half {
  uint16_t bits = 0;
  half() = default;
  explicit half(float f) : bits(model::to_half_bits(f)) {}
  operator float() const { return model::from_half_bits(bits); }
};
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  explicit bfloat16_t(float f) : bits(model::to_bf16_bits(f)) {}
  operator float() const { return model::float_of(uint32_t(bits) << 16); }
};
static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, "2-byte floating types");

namespace model {

[[noreturn]] inline void fail(const char* what, const char* detail = "") {
  std::fprintf(stderr, "pto model: %s %s\n", what, detail);
  std::abort();
}

// docs/coding/Tile.md, include/pto/common/buffer_limits.hpp (shared/spec/pto-isa.md 5.4):
// on-chip buffer capacities in bytes per target.
constexpr uint64_t capacity(TileType loc) {
#if defined(PTO_TARGET_A5)
  switch (loc) {
    case TileType::Vec: return 256 * 1024;
    case TileType::Mat: return 512 * 1024;
    case TileType::Left: return 64 * 1024;
    case TileType::Right: return 64 * 1024;
    case TileType::Acc: return 256 * 1024;
    case TileType::Bias: return 4 * 1024;
    default: return 4 * 1024;
  }
#else
  switch (loc) {
    case TileType::Vec: return 192 * 1024;
    case TileType::Mat: return 512 * 1024;
    case TileType::Left: return 64 * 1024;
    case TileType::Right: return 64 * 1024;
    case TileType::Acc: return 128 * 1024;
    case TileType::Bias: return 1024;
    default: return 2 * 1024;
  }
#endif
}

// The on-chip buffers: one byte array per tile location, filled with a NaN-like pattern so
// that reading data nobody wrote shows in the results.
inline uint8_t* buffer(TileType loc) {
  static uint8_t* bufs[7] = {};
  auto& b = bufs[static_cast<int>(loc)];
  if (!b) {
    b = static_cast<uint8_t*>(std::malloc(capacity(loc)));
    std::memset(b, 0xff, capacity(loc));
  }
  return b;
}

template <typename T> struct acc_of { using type = T; };
template <> struct acc_of<half> { using type = float; };
template <> struct acc_of<bfloat16_t> { using type = float; };
template <> struct acc_of<int8_t> { using type = int32_t; };

}  // namespace model

// Tile: docs/coding/Tile.md and shared/spec/pto-isa.md 5.1 / 9.1.
template <TileType Loc, typename T, int Rows, int Cols, BLayout B = BLayout::RowMajor, int ValidRow = Rows,
          int ValidCol = Cols, SLayout S = SLayout::NoneBox, int SFractalSize = 512, PadValue Pad = PadValue::Null>
struct Tile {
  // Tile.md "compile-time rules": positive extents, a valid region inside the tile.
  static_assert(Rows > 0 && Cols > 0, "Tile: Rows and Cols must be positive");
  static_assert(ValidRow == DYNAMIC || (ValidRow >= 0 && ValidRow <= Rows), "Tile: ValidRow must be <= Rows");
  static_assert(ValidCol == DYNAMIC || (ValidCol >= 0 && ValidCol <= Cols), "Tile: ValidCol must be <= Cols");
  // Tile.md: the fractal size is 512 bytes (L0A/L0B/L1), 1024 (L0C) or 32 (MX scales).
  static_assert(SFractalSize == 512 || SFractalSize == 1024 || SFractalSize == 32, "Tile: bad fractal size");
  // Tile.md: a row-major unboxed tile's rows are 32-byte aligned; a column-major one's
  // columns are.
  static_assert(!(S == SLayout::NoneBox && B == BLayout::RowMajor) || (Cols * sizeof(T)) % 32 == 0,
                "Tile: a row-major tile needs Cols * sizeof(T) to be a multiple of 32 bytes");
  static_assert(!(S == SLayout::NoneBox && B == BLayout::ColMajor) || (Rows * sizeof(T)) % 32 == 0,
                "Tile: a column-major tile needs Rows * sizeof(T) to be a multiple of 32 bytes");
  // pto_tile.hpp (Tile::InnerRows / InnerCols): a boxed tile is whole fractal boxes. A
  // 512-byte box is 16 rows x 32 bytes when the boxes are row-major (SLayout::RowMajor: Mat,
  // Left) and 32 bytes x 16 columns when column-major (SLayout::ColMajor: Right); the
  // 1024-byte Acc box is 16 x 16 elements. The rows rule is waived for a one-row tile (and
  // for Vec tiles); the columns rule never is: the real headers refuse an int8 Mat tile of
  // 32 x 16 ("Layout cols must be divisible by inner box cols") and an fp32 Mat tile of
  // 8 x 16 ("Layout rows must be divisible by inner box rows"), and accept a 1 x 16 Left tile.
  static constexpr int InnerRows_ = S == SLayout::NoneBox ? 1
                                    : SFractalSize == 1024  ? 16
                                    : S == SLayout::RowMajor ? 16
                                                             : static_cast<int>(32 / sizeof(T));
  static constexpr int InnerCols_ = S == SLayout::NoneBox ? 1
                                    : SFractalSize == 1024  ? 16
                                    : S == SLayout::RowMajor ? static_cast<int>(32 / sizeof(T))
                                                             : 16;
  static_assert(SFractalSize == 32 || Loc == TileType::Vec || Rows == 1 || Rows % InnerRows_ == 0,
                "Tile: Layout rows must be divisible by inner box rows (16 for Mat, Left and Acc tiles, 32 bytes for Right tiles)");
  static_assert(SFractalSize == 32 || Cols % InnerCols_ == 0,
                "Tile: Layout cols must be divisible by inner box cols (32 bytes for Mat and Left tiles: 32 columns for int8; 16 for Right and Acc tiles)");
  // pto-isa.md 5.1: the Left / Right / Acc / Mat layouts.
  static_assert(Loc != TileType::Acc || (B == BLayout::ColMajor && S == SLayout::RowMajor && SFractalSize == 1024),
                "Tile: an Acc tile is ColMajor + SLayout::RowMajor with the 1024-byte fractal");
  static_assert(Loc != TileType::Right || (B == BLayout::RowMajor && S == SLayout::ColMajor),
                "Tile: a Right tile is RowMajor + SLayout::ColMajor");
#if defined(PTO_TARGET_A5)
  static_assert(Loc != TileType::Left || (B == BLayout::ColMajor && S == SLayout::RowMajor),
                "Tile: on A5 a Left tile is ColMajor + SLayout::RowMajor");
#else
  static_assert(Loc != TileType::Left || (B == BLayout::RowMajor && S == SLayout::RowMajor),
                "Tile: on A2A3 a Left tile is RowMajor + SLayout::RowMajor");
#endif

  using DType = T;
  static constexpr TileType Loc_ = Loc;
  static constexpr int Rows_ = Rows;
  static constexpr int Cols_ = Cols;
  static constexpr int ValidRow_ = ValidRow;
  static constexpr int ValidCol_ = ValidCol;
  static constexpr bool isRowMajor = B == BLayout::RowMajor;
  static constexpr bool isBoxed = S != SLayout::NoneBox;
  static constexpr PadValue Pad_ = Pad;

  // pto-isa.md 9.1: the constructors follow the dynamic valid dimensions: none, one
  // runtime value when exactly one is DYNAMIC, two when both are.
  Tile() = default;
  Tile(int64_t valid_rows, int64_t valid_cols)
    requires(ValidRow == DYNAMIC && ValidCol == DYNAMIC)
      : vr_(valid_rows), vc_(valid_cols) {
    check_valid();
  }
  explicit Tile(int64_t valid)
    requires((ValidRow == DYNAMIC) != (ValidCol == DYNAMIC))
  {
    if constexpr (ValidRow == DYNAMIC) {
      vr_ = valid;
    } else {
      vc_ = valid;
    }
    check_valid();
  }

  int64_t GetValidRow() const { return ValidRow == DYNAMIC ? vr_ : ValidRow; }
  int64_t GetValidCol() const { return ValidCol == DYNAMIC ? vc_ : ValidCol; }
  // pto_tile.hpp (9.1): the setters exist only for DYNAMIC dimensions.
  void SetValidRow(int64_t r)
    requires(ValidRow == DYNAMIC)
  {
    vr_ = r;
    check_valid();
  }
  void SetValidCol(int64_t c)
    requires(ValidCol == DYNAMIC)
  {
    vc_ = c;
    check_valid();
  }
  void SetValidShape(int64_t r, int64_t c)
    requires(ValidRow == DYNAMIC && ValidCol == DYNAMIC)
  {
    vr_ = r;
    vc_ = c;
    check_valid();
  }

  // The model's storage: element (i, j) of the tile's memory. Unboxed tiles follow their
  // BLayout; boxed tiles are modelled row-major (only the model reads them).
  T& at(int64_t i, int64_t j) const {
    if (!data_) model::fail("tile used before TASSIGN");
    if constexpr (!isBoxed && !isRowMajor) {
      return data_[j * Rows + i];
    } else {
      return data_[i * Cols + j];
    }
  }
  T* data_ = nullptr;

 private:
  void check_valid() const {
    if (GetValidRow() < 0 || GetValidRow() > Rows || GetValidCol() < 0 || GetValidCol() > Cols)
      model::fail("valid region outside the tile");
  }
  int64_t vr_ = ValidRow == DYNAMIC ? Rows : ValidRow;
  int64_t vc_ = ValidCol == DYNAMIC ? Cols : ValidCol;
};

template <typename X> struct is_tile : std::false_type {};
template <TileType L, typename T, int R, int C, BLayout B, int VR, int VC, SLayout S, int F, PadValue P>
struct is_tile<Tile<L, T, R, C, B, VR, VC, S, F, P>> : std::true_type {};

// Shape / Stride: docs/coding/GlobalTensor.md. Five dimensions; the constructor takes one
// runtime value per DYNAMIC dimension (a static_assert in pto-isa; a constraint here).
template <int64_t N1, int64_t N2, int64_t N3, int64_t N4, int64_t N5>
struct Dims5 {
  static constexpr int64_t stat[5] = {N1, N2, N3, N4, N5};
  static constexpr int ndyn = (N1 == DYNAMIC) + (N2 == DYNAMIC) + (N3 == DYNAMIC) + (N4 == DYNAMIC) + (N5 == DYNAMIC);
  int64_t v[5] = {N1, N2, N3, N4, N5};
  Dims5() {
    for (auto& x : v)
      if (x == DYNAMIC) x = 1;
  }
  template <typename... A>
    requires(sizeof...(A) == ndyn && ndyn > 0 && (std::is_integral_v<A> && ...))
  Dims5(A... a) {
    const int64_t vals[] = {static_cast<int64_t>(a)...};
    int k = 0;
    for (int d = 0; d < 5; ++d) v[d] = stat[d] == DYNAMIC ? vals[k++] : stat[d];
  }
};
template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Shape : Dims5<N1, N2, N3, N4, N5> {
  using Dims5<N1, N2, N3, N4, N5>::Dims5;
};
template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC, int64_t N5 = DYNAMIC>
struct Stride : Dims5<N1, N2, N3, N4, N5> {
  using Dims5<N1, N2, N3, N4, N5>::Dims5;
};

// GlobalTensor: GlobalTensor.md and pto-isa.md 9.2: `GlobalTensor(pointer, shape = {},
// stride = {})`; a bare integer second argument is a shape, not a stride.
template <typename T, typename Sh, typename St, Layout L = Layout::ND>
struct GlobalTensor {
  using DType = T;
  GlobalTensor(T* ptr, const Sh& shape = Sh(), const St& stride = St()) : ptr_(ptr), shape_(shape), stride_(stride) {}
  int64_t dim(int d) const { return shape_.v[d]; }
  int64_t stride(int d) const { return stride_.v[d]; }
  // The 2-D view the tile instructions use: rows are dims 0..3 flattened, columns dim 4.
  int64_t rows() const { return dim(0) * dim(1) * dim(2) * dim(3); }
  int64_t cols() const { return dim(4); }
  T& at(int64_t r, int64_t c) const {
    int64_t i3 = r % dim(3), rest = r / dim(3);
    int64_t i2 = rest % dim(2);
    rest /= dim(2);
    int64_t i1 = rest % dim(1), i0 = rest / dim(1);
    return ptr_[i0 * stride(0) + i1 * stride(1) + i2 * stride(2) + i3 * stride(3) + c * stride(4)];
  }
  T* ptr_;
  Sh shape_;
  St stride_;
};

// Events: every instruction takes a trailing pack of events to wait for (pto-isa.md 5.3);
// only events are accepted there, so a surplus tile argument is an error.
struct Event {};
struct RecordEvent {};
template <typename... E>
constexpr bool only_events = (std::is_same_v<std::remove_cvref_t<E>, Event> && ...);
#define PTO_EVENTS(E) static_assert(only_events<E...>, "a trailing instruction argument must be an event")

// The core the calling thread models in a split A2A3 kernel (see the cross-core section at
// the end): -1 when the kernel is not split, 0 for the cube core (AIC), 1 for a vector core
// (AIV, subblock `core_sub`).
namespace model {
inline thread_local int core_kind = -1;
inline thread_local int core_sub = 0;
// The kinds of tile a thread outside a split kernel placed (bit 0: cube, bit 1: vector).
inline thread_local int placed = 0;
}  // namespace model

// TASSIGN: pto-isa.md 5.3: a tile's byte offset in its buffer, inside the buffer's capacity.
// pto-programs.md section A: on A2A3 the AIC has the Mat / Left / Right / Acc / Bias buffers
// and the AIV the unified (Vec) buffer, so a split kernel's part may place only its core's
// tiles.
template <typename TileT>
  requires is_tile<TileT>::value
void TASSIGN(TileT& tile, uint64_t byte_offset) {
  constexpr uint64_t bytes = uint64_t(TileT::Rows_) * TileT::Cols_ * sizeof(typename TileT::DType);
  if (model::core_kind == 0 && TileT::Loc_ == TileType::Vec) model::fail("TASSIGN: a Vec tile on the cube core");
  if (model::core_kind == 1 && TileT::Loc_ != TileType::Vec) model::fail("TASSIGN: a cube tile on a vector core");
#if !defined(PTO_TARGET_A5)
  // A2A3 has no core with both units (pto-programs.md section A): a function that is not a
  // part of a split kernel places only one core's tiles.
  if (model::core_kind == -1) {
    model::placed |= TileT::Loc_ == TileType::Vec ? 2 : 1;
    if (model::placed == 3) model::fail("TASSIGN: cube and vector tiles in one A2A3 function (no core has both)");
  }
#endif
  if (byte_offset % 32 != 0) model::fail("TASSIGN: offset is not 32-byte aligned");
  if (byte_offset + bytes > model::capacity(TileT::Loc_)) model::fail("TASSIGN: tile past the buffer's capacity");
  tile.data_ = reinterpret_cast<typename TileT::DType*>(model::buffer(TileT::Loc_) + byte_offset);
}

namespace model {

template <typename X> constexpr bool vec_row_major = X::Loc_ == TileType::Vec && X::isRowMajor && !X::isBoxed;

template <typename T> T from_f(double x) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>) {
    return T(static_cast<float>(x));
  } else {
    return static_cast<T>(x);
  }
}

template <typename D, typename F> void each(D& dst, F f) {
  for (int64_t i = 0; i < dst.GetValidRow(); ++i)
    for (int64_t j = 0; j < dst.GetValidCol(); ++j) dst.at(i, j) = f(i, j);
}

template <typename A, typename B> bool overlap(const A& a, const B& b) {
  auto a0 = reinterpret_cast<const uint8_t*>(a.data_), b0 = reinterpret_cast<const uint8_t*>(b.data_);
  auto a1 = a0 + A::Rows_ * A::Cols_ * sizeof(typename A::DType);
  auto b1 = b0 + B::Rows_ * B::Cols_ * sizeof(typename B::DType);
  return a0 < b1 && b0 < a1;
}

// A2A3 overwrites a `tmp` operand (pto-isa.md 9.6): the model does the same.
template <typename X> void clobber(X& tmp) {
  std::memset(static_cast<void*>(tmp.data_), 0x7f, X::Rows_ * X::Cols_ * sizeof(typename X::DType));
}

// The type a float element is computed in: double for fp64 (the semantics module computes
// fp64 in f64), float for float, half and bfloat16 (computed in f32, then rounded).
template <typename T> using arith = std::conditional_t<std::is_same_v<T, double>, double, float>;

// No pto-isa instruction of npu/a2a3 or npu/a5 computes on `double` (every elementwise,
// scalar, unary, comparison, fill, conversion, partial and matmul check lists its element
// types and none lists it); loads, stores, moves and selects only move 8-byte elements.
// TREM / TREMS assert it here; the other instructions' element-type lists below leave
// `double` out.
template <typename T> constexpr bool computes_on = !std::is_same_v<T, double>;

// Element types per instruction and target (issue 14), read from pto-isa's headers: each
// instruction's element-type static_asserts and the `if constexpr` type chains that end in a
// failing static_assert. A line gives the A2A3 list, then the A5 list, and the files they
// come from. pto-ir's table (`pto-ir/src/ops/dtypes.rs`, which the verifier reads) holds the
// same rows; `pto-lower/tests/dtype_table.rs` reads the PTO_TAKES / PTO_CVT / PTO_MATMUL
// lines below and fails when the two disagree. `takes_TADD<T>` is whether the target's TADD
// takes elements of T; every instruction below asserts its own.
template <typename T, typename... Us> constexpr bool one_of = (std::is_same_v<T, Us> || ...);
#define PTO_LIST(...) __VA_ARGS__
#if defined(PTO_TARGET_A5)
#define PTO_TAKES(NAME, A2A3, A5) template <typename T> constexpr bool takes_##NAME = one_of<T, PTO_LIST A5>;
#else
#define PTO_TAKES(NAME, A2A3, A5) template <typename T> constexpr bool takes_##NAME = one_of<T, PTO_LIST A2A3>;
#endif
// The lists the lines share.
#define PTO_DT_FLOATS (half, float)
#define PTO_DT_F32 (float)
// A2A3's vector arithmetic: 16- and 32-bit signed integers, half and float.
#define PTO_DT_ARITH_A2A3 (int16_t, int32_t, half, float)
// 1-, 2- and 4-byte integers.
#define PTO_DT_INTS (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t)
#define PTO_DT_INTS_64 (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t)
// Any 1-, 2- or 4-byte element (a check on sizeof only); the 1-byte floats are uint8_t here.
#define PTO_DT_B124 (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float)
// Any 1- to 8-byte element.
#define PTO_DT_B1248 (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, half, bfloat16_t, float, double)
// Any 2- or 4-byte element.
#define PTO_DT_B24 (int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float)
// A5's TADD and the like: every integer width, half, bfloat16 and float.
#define PTO_DT_ALL_A5 (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, half, bfloat16_t, float)
// A5's TMUL / TMULS: no 1-byte integers.
#define PTO_DT_MUL_A5 (int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, half, bfloat16_t, float)
// A5's TDIV / TDIVS: no 1-byte integers, no bfloat16.
#define PTO_DT_DIV_A5 (int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, half, float)
// A5's TREM: 2- to 8-byte integers, half and float.
#define PTO_DT_REM_A5 (int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, half, float)
// Elementwise, tile-tile. a2a3/TAdd.hpp:62, TSub.hpp:61, TMax.hpp:61, TMin.hpp:62;
// a5/TAdd.hpp:60, TSub.hpp:59, TMax.hpp:59, TMin.hpp:59.
PTO_TAKES(TADD, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TSUB, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TMAX, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TMIN, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
// a2a3/TMul.hpp:61; a5/TMul.hpp:59.
PTO_TAKES(TMUL, PTO_DT_ARITH_A2A3, PTO_DT_MUL_A5)
// a2a3/TDiv.hpp:58 (floats only); a5/TDiv.hpp:67.
PTO_TAKES(TDIV, PTO_DT_FLOATS, PTO_DT_DIV_A5)
// a2a3/TFmod.hpp:60,70 (float only); a5/TFMod.hpp:89.
PTO_TAKES(TFMOD, PTO_DT_F32, (int16_t, uint16_t, int32_t, uint32_t, half, float))
// a2a3/TRem.hpp:177; a5/TRem.hpp:107 (the TREM / TREMS declarations keep their own check,
// `rem_dtype`, which says the same).
PTO_TAKES(TREM, (int32_t, float), PTO_DT_REM_A5)
// a2a3/TPow.hpp:265 (no half); a5/TPow.hpp:631.
PTO_TAKES(TPOW, (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, float), (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, half, float))
PTO_TAKES(TPOWS, (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, float), (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, half, float))
// A2A3 asserts no element type: it works on 16-bit lanes (a2a3/TAnd.hpp:51, TOr.hpp:40),
// integers of 1, 2 or 4 bytes; a5/TAnd.hpp:55, TOr.hpp:54 ask 1, 2 or 4 bytes.
PTO_TAKES(TAND, PTO_DT_INTS, PTO_DT_B124)
PTO_TAKES(TOR, PTO_DT_INTS, PTO_DT_B124)
// a2a3/TXor.hpp:51 (TOR, TAND, TNOT); a5/TXor.hpp:54.
PTO_TAKES(TXOR, PTO_DT_INTS, PTO_DT_INTS)
// a2a3/TShl.hpp:44, TShr.hpp:44; a5/TShl.hpp:81, TShr.hpp:81.
PTO_TAKES(TSHL, PTO_DT_INTS, PTO_DT_INTS_64)
PTO_TAKES(TSHR, PTO_DT_INTS, PTO_DT_INTS_64)
// a2a3/TCmp.hpp:119, TCmps.hpp:155; a5/TCmp.hpp:138, TCmps.hpp:231.
PTO_TAKES(TCMP, (int32_t, half, float), PTO_DT_ALL_A5)
PTO_TAKES(TCMPS, (int16_t, uint16_t, int32_t, half, float), PTO_DT_ALL_A5)
// a2a3/TSel.hpp:67, TSels.hpp:54 (2 or 4 bytes); a5/TSel.hpp:120 (1 to 8 bytes), TSels.hpp:124.
PTO_TAKES(TSEL, PTO_DT_B24, PTO_DT_B1248)
PTO_TAKES(TSELS, PTO_DT_B24, (int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, half, float))
// Tile-scalar. a2a3/TAddS.hpp:52, TSubS.hpp:52, TMaxS.hpp:53, TMins.hpp:52, TMulS.hpp:52;
// a5/TAddS.hpp:57, TSubS.hpp:57, TMaxs.hpp:57, TMins.hpp:57, TMulS.hpp:57.
PTO_TAKES(TADDS, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TSUBS, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TMAXS, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TMINS, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TMULS, PTO_DT_ARITH_A2A3, PTO_DT_MUL_A5)
// TNEG is TMULS by -1 on both targets (a2a3/TUnaryOp.hpp:449, a5/TUnaryOp.hpp:365).
PTO_TAKES(TNEG, PTO_DT_ARITH_A2A3, PTO_DT_MUL_A5)
// a2a3/TDivS.hpp:220,278 (integers too); a5/TDivS.hpp:138.
PTO_TAKES(TDIVS, PTO_DT_ARITH_A2A3, PTO_DT_DIV_A5)
// TRECIP is TDIVS(dst, 1, src) on both targets (common/pto_instr.hpp:533).
PTO_TAKES(TRECIP, PTO_DT_ARITH_A2A3, PTO_DT_DIV_A5)
// a2a3/TFmodS.hpp:58,73; a5/TFModS.hpp:93 (2 or 4 bytes).
PTO_TAKES(TFMODS, PTO_DT_F32, PTO_DT_B24)
// a2a3/TRemS.hpp:140,155; a5/TRemS.hpp:97.
PTO_TAKES(TREMS, (int32_t, float), PTO_DT_REM_A5)
// A2A3: TEXPANDS of the scalar, then the tile-tile form (a2a3/TBitwiseSOp.hpp:99-136);
// a5/TAndS.hpp:59, TOrS.hpp:59, TXorS.hpp:59 (1, 2 or 4 bytes).
PTO_TAKES(TANDS, PTO_DT_INTS, PTO_DT_B124)
PTO_TAKES(TORS, PTO_DT_INTS, PTO_DT_B124)
PTO_TAKES(TXORS, PTO_DT_INTS, PTO_DT_B124)
// a2a3/TBitwiseSOp.hpp:24 (TShiftCheck: 2- and 4-byte); a5/TShlS.hpp:57, TShrS.hpp:57.
PTO_TAKES(TSHLS, (int16_t, uint16_t, int32_t, uint32_t), PTO_DT_INTS_64)
PTO_TAKES(TSHRS, (int16_t, uint16_t, int32_t, uint32_t), PTO_DT_INTS_64)
// Unary. a2a3/TUnaryOp.hpp:265 (float only), 408 (TRELU), 388 (TNOT, 16-bit lanes);
// a5/TUnaryOp.hpp:149, 316 (TABS), 247 (TRELU), 212 (TNOT), TRsqrt.hpp:194.
PTO_TAKES(TEXP, PTO_DT_FLOATS, PTO_DT_FLOATS)
PTO_TAKES(TLOG, PTO_DT_FLOATS, PTO_DT_FLOATS)
PTO_TAKES(TSQRT, PTO_DT_FLOATS, PTO_DT_FLOATS)
PTO_TAKES(TRSQRT, PTO_DT_FLOATS, PTO_DT_FLOATS)
PTO_TAKES(TABS, PTO_DT_FLOATS, (int8_t, int16_t, int32_t, half, float))
PTO_TAKES(TRELU, (int32_t, half, float), (int32_t, half, float))
PTO_TAKES(TNOT, PTO_DT_INTS, PTO_DT_INTS)
// Broadcasts. a2a3/TRowExpandAdd.hpp:40 (Sub:54, Mul:40, Max:40, Min:40), Div:55,
// TColExpandBinOp.hpp:89, TColExpandDiv.hpp:52; a5/TRowExpandAdd.hpp:55 (and the others),
// TColExpandBinOp.hpp:197.
PTO_TAKES(TROWEXPANDADD, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TROWEXPANDSUB, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TROWEXPANDMUL, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TROWEXPANDMAX, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TROWEXPANDMIN, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TROWEXPANDDIV, PTO_DT_FLOATS, PTO_DT_B124)
PTO_TAKES(TCOLEXPANDADD, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TCOLEXPANDSUB, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TCOLEXPANDMUL, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TCOLEXPANDMAX, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TCOLEXPANDMIN, PTO_DT_ARITH_A2A3, PTO_DT_B124)
PTO_TAKES(TCOLEXPANDDIV, PTO_DT_FLOATS, PTO_DT_B124)
// a2a3/TRowExpand.hpp:82, TColExpand.hpp:44 (1, 2 or 4 bytes); a5/TRowExpand.hpp:27,
// TColExpand.hpp:27 (1 to 8 bytes).
PTO_TAKES(TROWEXPAND, PTO_DT_B124, PTO_DT_B1248)
PTO_TAKES(TCOLEXPAND, PTO_DT_B124, PTO_DT_B1248)
// Reductions. a2a3/TRowReduceOps.hpp:197, TRowProd.hpp:56-70; a5/TRowReduce.hpp:393
// (TROWSUM), 365 and 420 (TROWMAX / TROWMIN add 1-byte integers), TRowProd.hpp:27.
PTO_TAKES(TROWSUM, PTO_DT_ARITH_A2A3, PTO_DT_ARITH_A2A3)
PTO_TAKES(TROWPROD, PTO_DT_ARITH_A2A3, PTO_DT_ARITH_A2A3)
PTO_TAKES(TROWMAX, PTO_DT_ARITH_A2A3, (int8_t, uint8_t, int16_t, int32_t, half, float))
PTO_TAKES(TROWMIN, PTO_DT_ARITH_A2A3, (int8_t, uint8_t, int16_t, int32_t, half, float))
// a2a3/TColReduceOps.hpp:87, TColSum.hpp:102; a5/TColReduceOps.hpp:31, TColProd.hpp:42.
PTO_TAKES(TCOLSUM, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TCOLMAX, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TCOLMIN, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TCOLPROD, PTO_DT_ARITH_A2A3, (int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float))
// The source of an arg-reduction: 2 or 4 bytes (a2a3/TRowReduceIdxOps.hpp:29,
// a5/TRowReduceIdx.hpp:55).
PTO_TAKES(TROWARGMAX, PTO_DT_B24, PTO_DT_B24)
PTO_TAKES(TROWARGMIN, PTO_DT_B24, PTO_DT_B24)
// a2a3/TTrans.hpp:1118, TFillPad.hpp:286; a5/TTrans.hpp:825, TFillPad.hpp:120 (1, 2 or 4 bytes).
PTO_TAKES(TTRANS, PTO_DT_B124, PTO_DT_B124)
PTO_TAKES(TFILLPAD, PTO_DT_B124, PTO_DT_B124)
// a2a3/TExpandS.hpp:144; a5/TExpandS.hpp:149.
PTO_TAKES(TEXPANDS, PTO_DT_B124, PTO_DT_ALL_A5)
// The accumulating forms. a2a3/TPartAdd.hpp:74, TPartMul.hpp:74, TPartMax.hpp:74,
// TPartMin.hpp:74; a5/TPartAdd.hpp:33, TPartMul.hpp:32 (no 64-bit), TPartMax.hpp:34,
// TPartMin.hpp:34.
PTO_TAKES(TPARTADD, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TPARTMAX, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TPARTMIN, PTO_DT_ARITH_A2A3, PTO_DT_ALL_A5)
PTO_TAKES(TPARTMUL, PTO_DT_ARITH_A2A3, PTO_DT_B124)
// TSTORE<.., AtomicType::AtomicAdd>: the hardware's atomic add
// (common/arch/memory/tstore_common.hpp:151, a5/TStore.hpp:95).
PTO_TAKES(TSTORE_ADD, (int8_t, int16_t, int32_t, half, bfloat16_t, float), (int8_t, int16_t, int32_t, half, bfloat16_t, float))
// TCVT's conversions (from, to, on A2A3, on A5): A2A3's dispatcher (a2a3/TCvt.hpp:807-900
// and GenCastCallSpecialCases:753) has no branch for another pair and converts nothing;
// A5 has one `castData` overload per pair (a5/TCvt.hpp).
template <typename From, typename To> constexpr bool converts = false;
#if defined(PTO_TARGET_A5)
#define PTO_CVT(FROM, TO, A2A3, A5) template <> constexpr bool converts<FROM, TO> = A5;
#else
#define PTO_CVT(FROM, TO, A2A3, A5) template <> constexpr bool converts<FROM, TO> = A2A3;
#endif
PTO_CVT(float, half, true, true)
PTO_CVT(float, bfloat16_t, true, true)
PTO_CVT(float, int16_t, true, true)
PTO_CVT(float, int32_t, true, true)
PTO_CVT(float, int64_t, true, true)
PTO_CVT(float, float, true, true)
PTO_CVT(half, float, true, true)
PTO_CVT(half, int32_t, true, true)
PTO_CVT(half, int16_t, true, true)
PTO_CVT(half, int8_t, true, true)
PTO_CVT(half, uint8_t, true, true)
PTO_CVT(bfloat16_t, float, true, true)
PTO_CVT(bfloat16_t, int32_t, true, true)
PTO_CVT(bfloat16_t, half, false, true)
PTO_CVT(int8_t, half, true, true)
PTO_CVT(int8_t, int16_t, false, true)
PTO_CVT(int8_t, int32_t, false, true)
PTO_CVT(uint8_t, half, true, true)
PTO_CVT(uint8_t, uint16_t, false, true)
PTO_CVT(int16_t, half, true, true)
PTO_CVT(int16_t, float, true, true)
PTO_CVT(int16_t, int32_t, false, true)
PTO_CVT(int16_t, uint32_t, false, true)
PTO_CVT(int16_t, uint8_t, false, true)
PTO_CVT(int32_t, float, true, true)
PTO_CVT(int32_t, int16_t, true, true)
PTO_CVT(int32_t, int64_t, true, true)
PTO_CVT(int32_t, half, true, false)
PTO_CVT(int32_t, uint16_t, false, true)
PTO_CVT(int32_t, uint8_t, false, true)
PTO_CVT(uint32_t, uint8_t, false, true)
PTO_CVT(uint32_t, uint16_t, false, true)
PTO_CVT(uint32_t, int16_t, false, true)
PTO_CVT(int64_t, float, true, true)
PTO_CVT(int64_t, int32_t, true, true)
// TMATMUL / TMATMUL_ACC / TMATMUL_BIAS (input, accumulator), the same on both targets
// (a2a3/TMatmul.hpp:83, a5/TMatmul.hpp:145-151; A5 adds fp8 inputs).
template <typename In, typename Acc> constexpr bool multiplies = false;
#define PTO_MATMUL(IN, ACC) template <> constexpr bool multiplies<IN, ACC> = true;
PTO_MATMUL(int8_t, int32_t)
PTO_MATMUL(half, float)
PTO_MATMUL(bfloat16_t, float)
PTO_MATMUL(float, float)

template <typename T> T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return T(arith<T>(a) + arith<T>(b));
  }
}
template <typename T> T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return T(arith<T>(a) - arith<T>(b));
  }
}
template <typename T> T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return T(arith<T>(a) * arith<T>(b));
  }
}
template <typename T> T div_(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return T(0);
    if (std::is_signed_v<T> && b == T(-1)) return wrap_sub(T(0), a);
    return a / b;
  } else {
    return T(arith<T>(a) / arith<T>(b));
  }
}
// TFMOD: the remainder has the dividend's sign (pto-isa.md 6.2); the semantics module's
// `rem` (`pto_ir::sem`). Integers: `a` when `b == 0`, and `MIN % -1 == 0`. Floats: what
// npu/a2a3/TFmod.hpp and npu/a5/TFMod.hpp's default algorithm compute on fp32, a divide, a
// truncation to an integral value, a multiply and a subtract, each rounded (not C's exact
// `fmod`); 16-bit floats compute it in float and round to nearest once.
template <typename T> T fmod_(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return a;
    if (std::is_signed_v<T> && b == T(-1)) return T(0);
    return a % b;
  } else {
    const arith<T> x = arith<T>(a), y = arith<T>(b);
    const arith<T> q = std::trunc(x / y);
    const arith<T> p = q * y;
    return T(x - p);
  }
}
// TREM: the remainder has the divisor's sign (pto-isa.md 6.2); the semantics module's
// `floor_mod`. Floats: npu/a2a3/TRem.hpp and npu/a5/TRem.hpp's default fp32 algorithm, a
// divide, a floor, a multiply and a subtract, then `r + b` where the product `r * b` is
// negative, each rounded; 16-bit floats compute it in float and round to nearest once.
template <typename T> T rem_(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T r = fmod_(a, b);
    if (b != 0 && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    const arith<T> x = arith<T>(a), y = arith<T>(b);
    const arith<T> q = std::floor(x / y);
    const arith<T> p = q * y;
    const arith<T> r = x - p;
    const arith<T> s = r * y;
    return T(s < 0 ? r + y : r);
  }
}
// TPOW: integers wrap and a negative exponent truncates 1 / a^-b (only 1 and -1 survive);
// floats are C's `pow` (the semantics module's `pow`).
template <typename T> T pow_(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b < 0) return a == T(1) ? T(1) : a == T(-1) ? (b % 2 == 0 ? T(1) : a) : T(0);
    }
    T acc = T(1), base = a;
    for (auto e = std::make_unsigned_t<T>(b); e > 0; e >>= 1) {
      if (e & 1) acc = wrap_mul(acc, base);
      base = wrap_mul(base, base);
    }
    return acc;
  } else {
    return T(std::pow(arith<T>(a), arith<T>(b)));
  }
}
// TMAX / TMIN: the semantics module's maximumNumber / minimumNumber: a NaN operand is
// ignored and -0 is below +0 (fmax / fmin may return either zero).
template <typename T> T max_(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a > b ? a : b;
  } else {
    arith<T> x = arith<T>(a), y = arith<T>(b);
    if (x == y) return std::signbit(x) ? b : a;
    return (y > x || x != x) ? b : a;
  }
}
template <typename T> T min_(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a < b ? a : b;
  } else {
    arith<T> x = arith<T>(a), y = arith<T>(b);
    if (x == y) return std::signbit(x) ? a : b;
    return (y < x || x != x) ? b : a;
  }
}

}  // namespace model

// Elementwise tile-tile instructions (pto-isa.md 6.2): Vec, row-major, one dtype; the
// destination's valid region is the iteration domain.
#define PTO_BINARY(NAME, EXPR)                                                                  \
  template <typename D, typename A, typename B, typename... E>                                  \
  RecordEvent NAME(D& dst, A& a, B& b, E&...) {                                                 \
    PTO_EVENTS(E);                                                                              \
    static_assert(model::takes_##NAME<typename D::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    static_assert(model::vec_row_major<D> && model::vec_row_major<A> && model::vec_row_major<B>, \
                  #NAME ": operands must be row-major Vec tiles");                             \
    static_assert(std::is_same_v<typename D::DType, typename A::DType> &&                       \
                      std::is_same_v<typename D::DType, typename B::DType>,                     \
                  #NAME ": operands must have one dtype");                                      \
    using T = typename D::DType;                                                                \
    model::each(dst, [&](int64_t i, int64_t j) {                                                \
      T x = a.at(i, j), y = b.at(i, j);                                                         \
      return EXPR;                                                                              \
    });                                                                                         \
    return {};                                                                                  \
  }
PTO_BINARY(TADD, model::wrap_add(x, y))
PTO_BINARY(TSUB, model::wrap_sub(x, y))
PTO_BINARY(TMUL, model::wrap_mul(x, y))
PTO_BINARY(TDIV, model::div_(x, y))
PTO_BINARY(TMAX, model::max_(x, y))
PTO_BINARY(TMIN, model::min_(x, y))
PTO_BINARY(TFMOD, model::fmod_(x, y))
PTO_BINARY(TAND, T(x & y))
PTO_BINARY(TOR, T(x | y))
PTO_BINARY(TSHL, T(y < 0 || y >= T(sizeof(T) * 8) ? T(0) : T(x << y)))
PTO_BINARY(TSHR, T(y < 0 || y >= T(sizeof(T) * 8) ? T(x < 0 ? -1 : 0) : T(x >> y)))
#undef PTO_BINARY

// TPARTADD / TPARTMUL / TPARTMAX / TPARTMIN (docs/isa/TPARTADD.md): over the destination's
// valid region, the op where both sources are valid, the valid one where one is. The
// documented patterns: one source's region equals the destination's and the other lies
// inside it (anything else is implementation-defined, so the model refuses it).
#define PTO_PART(NAME, EXPR)                                                                      \
  template <typename D, typename A, typename B, typename... E>                                    \
  RecordEvent NAME(D& dst, A& a, B& b, E&...) {                                                   \
    PTO_EVENTS(E);                                                                                \
    static_assert(model::takes_##NAME<typename D::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    static_assert(model::vec_row_major<D> && model::vec_row_major<A> && model::vec_row_major<B>,   \
                  #NAME ": operands must be row-major Vec tiles");                               \
    using T = typename D::DType;                                                                  \
    const int64_t dr = dst.GetValidRow(), dc = dst.GetValidCol();                                 \
    const int64_t ar = a.GetValidRow(), ac = a.GetValidCol(), br = b.GetValidRow(), bc = b.GetValidCol(); \
    const bool a_full = ar == dr && ac == dc, b_full = br == dr && bc == dc;                      \
    const bool a_in = ar <= dr && ac <= dc, b_in = br <= dr && bc <= dc;                          \
    if (!((a_full && b_in) || (b_full && a_in))) model::fail(#NAME ": unsupported valid regions");\
    model::each(dst, [&](int64_t i, int64_t j) {                                                  \
      const bool ia = i < ar && j < ac, ib = i < br && j < bc;                                    \
      T x = ia ? T(a.at(i, j)) : T(), y = ib ? T(b.at(i, j)) : T();                               \
      return ia && ib ? (EXPR) : ia ? x : y;                                                      \
    });                                                                                           \
    return {};                                                                                    \
  }
PTO_PART(TPARTADD, model::wrap_add(x, y))
PTO_PART(TPARTMUL, model::wrap_mul(x, y))
PTO_PART(TPARTMAX, model::max_(x, y))
PTO_PART(TPARTMIN, model::min_(x, y))
#undef PTO_PART

// Tile-scalar instructions (pto-isa.md 6.4): row-major Vec tiles, the scalar of the source's
// dtype.
#define PTO_SCALAR(NAME, EXPR)                                                                   \
  template <typename D, typename S, typename... E>                                               \
  RecordEvent NAME(D& dst, S& src, typename S::DType k, E&...) {                                 \
    PTO_EVENTS(E);                                                                               \
    static_assert(model::takes_##NAME<typename D::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    static_assert(model::vec_row_major<D> && model::vec_row_major<S>,                            \
                  #NAME ": tile-scalar instructions need row-major Vec tiles");                 \
    using T = typename D::DType;                                                                 \
    model::each(dst, [&](int64_t i, int64_t j) {                                                 \
      T x = src.at(i, j), y = k;                                                                 \
      return EXPR;                                                                               \
    });                                                                                          \
    return {};                                                                                   \
  }
PTO_SCALAR(TADDS, model::wrap_add(x, y))
PTO_SCALAR(TSUBS, model::wrap_sub(x, y))
PTO_SCALAR(TMULS, model::wrap_mul(x, y))
PTO_SCALAR(TMAXS, model::max_(x, y))
PTO_SCALAR(TMINS, model::min_(x, y))
PTO_SCALAR(TFMODS, model::fmod_(x, y))
PTO_SCALAR(TANDS, T(x & y))
PTO_SCALAR(TORS, T(x | y))
PTO_SCALAR(TSHLS, T(y < 0 || y >= T(sizeof(T) * 8) ? T(0) : T(x << y)))
PTO_SCALAR(TSHRS, T(y < 0 || y >= T(sizeof(T) * 8) ? T(x < 0 ? -1 : 0) : T(x >> y)))
PTO_SCALAR(TDIVS, model::div_(x, y))
#undef PTO_SCALAR
// TDIVS with the scalar first: `d = k / s` (pto-isa.md 6.4).
template <typename D, typename S, typename... E>
  requires is_tile<S>::value
RecordEvent TDIVS(D& dst, typename S::DType k, S& src, E&...) {
  PTO_EVENTS(E);
  static_assert(model::takes_TDIVS<typename D::DType>, "TDIVS: the target's TDIVS does not take this element type");
  static_assert(model::vec_row_major<D> && model::vec_row_major<S>, "TDIVS: row-major Vec tiles");
  model::each(dst, [&](int64_t i, int64_t j) { return model::div_(k, src.at(i, j)); });
  return {};
}

// TREM / TREMS (pto-isa 3186c381 `common/pto_instr.hpp`: `TREM(dst, src0, src1, tmp, ..)`
// and `TREMS(dst, src, scalar, tmp, ..)`): row-major Vec tiles of one dtype and a scratch
// tile the instruction overwrites. The dtypes (`npu/a2a3/TRem.hpp`, `TRemS.hpp`: float and
// int32 only; `npu/a5/TRem.hpp`: half, float, int16 / uint16, int32 / uint32, int64 /
// uint64, and TREMS the same here although its check only asks for 2, 4 or 8 bytes: its
// other element types reach no implementation). A2A3's TREM uses `tmp` as one row: a
// source row's quotients, then its comparison mask, asserting `tmp.GetValidCol() >= stride
// + 2 * ceil(stride / 64)` (the destination's row stride) and filling one 256-byte repeat
// past the stride. The CPU simulation's TREMS takes `tmp` of the destination's exact type
// (`cpu/TBinSOps.hpp`: `TREMS_IMPL(TileDst&, TileSrc&, scalar, TileDst& tmp)`); A2A3's
// asks at least one row of the destination's valid columns. The meaning is the semantics
// module's `floor_mod` (the CPU simulation's `OP_REM`: the truncating remainder moved to
// the divisor's sign), which is why the verifier refuses integers on A5 (its TREM
// truncates them).
namespace model {
template <typename T> constexpr bool rem_dtype() {
#if defined(PTO_TARGET_A5)
  return std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
         std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
         std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;
#else
  return std::is_same_v<T, float> || std::is_same_v<T, int32_t>;
#endif
}
}  // namespace model
// The algorithm (common/type.hpp): A5's HIGH_PRECISION fp32 TREM / TREMS compute the exact
// remainder (npu/a5/custom/TFmodRemHp.hpp); A2A3 and the CPU simulation take and ignore it.
// The emitter keeps DEFAULT: the semantics' floor_mod is the default fp32 sequence, the one
// A2A3 has. A5's default fp32 TREMS skips the sign fix (npu/a5/TRemS.hpp), so the lowering
// gives A5 a TREM against an expanded scalar instead, and this model's TREMS refuses fp32 on A5.
enum class RemAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
enum class RemSAlgorithm : uint8_t { DEFAULT, HIGH_PRECISION };
template <auto Precision = RemAlgorithm::DEFAULT, typename D, typename A, typename B, typename Tmp, typename... E>
  requires is_tile<B>::value && is_tile<Tmp>::value
RecordEvent TREM(D& dst, A& a, B& b, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  static_assert(model::computes_on<typename D::DType>, "TREM: no target computes on fp64 tiles");
  static_assert(model::vec_row_major<D> && model::vec_row_major<A> && model::vec_row_major<B>,
                "TREM: operands must be row-major Vec tiles");
  static_assert(std::is_same_v<typename D::DType, typename A::DType> && std::is_same_v<typename D::DType, typename B::DType>,
                "TREM: operands must have one dtype");
  static_assert(model::rem_dtype<typename D::DType>(), "TREM: the target's TREM does not take this dtype");
  static_assert(model::vec_row_major<Tmp>, "TREM: tmp is a row-major Vec tile");
  static_assert(std::is_same_v<decltype(Precision), RemAlgorithm>, "TREM: the algorithm is a RemAlgorithm");
#if !defined(PTO_TARGET_A5)
  constexpr int64_t stride = D::Cols_, words = 2 * ((stride + 63) / 64);
  static_assert(int64_t(Tmp::Rows_) * Tmp::Cols_ * sizeof(typename Tmp::DType) >= (stride + 64) * sizeof(typename D::DType),
                "TREM: on A2A3 tmp holds a row of the destination's stride and a 256-byte mask repeat");
  if (tmp.GetValidCol() < stride + words) model::fail("TREM: tmp has fewer valid columns than stride + mask words (A2A3)");
#endif
  if (model::overlap(tmp, a) || model::overlap(tmp, b) || model::overlap(tmp, dst)) model::fail("TREM: tmp overlaps an operand");
#if !defined(PTO_TARGET_A5)
  // A2A3's TREM writes partial results into dst and then reads its sources again.
  if (model::overlap(dst, a) || model::overlap(dst, b)) model::fail("TREM: dst overlaps a source (A2A3)");
#endif
  model::each(dst, [&](int64_t i, int64_t j) { return model::rem_(a.at(i, j), b.at(i, j)); });
  model::clobber(tmp);
  return {};
}
template <auto Precision = RemSAlgorithm::DEFAULT, typename D, typename S, typename Tmp, typename... E>
  requires is_tile<Tmp>::value
RecordEvent TREMS(D& dst, S& src, typename S::DType k, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  static_assert(model::computes_on<typename D::DType>, "TREMS: no target computes on fp64 tiles");
  static_assert(model::vec_row_major<D> && model::vec_row_major<S>, "TREMS: tile-scalar instructions need row-major Vec tiles");
  static_assert(std::is_same_v<typename D::DType, typename S::DType>, "TREMS: operands must have one dtype");
  static_assert(model::rem_dtype<typename D::DType>(), "TREMS: the target's TREMS does not take this dtype");
#if defined(PTO_TARGET_A5)
  static_assert(!std::is_same_v<typename D::DType, float>, "TREMS: A5's fp32 TREMS skips floor_mod's sign fix (use TREM)");
#endif
  static_assert(std::is_same_v<Tmp, D>, "TREMS: tmp has the destination's tile type");
  static_assert(std::is_same_v<decltype(Precision), RemSAlgorithm>, "TREMS: the algorithm is a RemSAlgorithm");
  if (tmp.GetValidCol() < dst.GetValidCol() || tmp.GetValidRow() < 1) model::fail("TREMS: tmp is smaller than a destination row");
  if (model::overlap(tmp, src) || model::overlap(tmp, dst)) model::fail("TREMS: tmp overlaps an operand");
#if !defined(PTO_TARGET_A5)
  // A2A3's TREMS writes `floor(src / k) * k` into dst and then reads src again.
  if (model::overlap(dst, src)) model::fail("TREMS: dst overlaps the source (A2A3)");
#endif
  model::each(dst, [&](int64_t i, int64_t j) { return model::rem_(typename D::DType(src.at(i, j)), k); });
  model::clobber(tmp);
  return {};
}

// TXOR / TXORS (pto-isa 3186c381 `common/pto_instr.hpp`: `TXOR(dst, src0, src1, tmp, ..)`
// and `TXORS(dst, src, scalar, tmp, ..)`, with no 3-operand form): row-major Vec tiles of
// one dtype and a scratch tile. Where each rule comes from:
// - A2A3 (`npu/a2a3/TXor.hpp`) computes `(a | b) & !(a & b)`, keeping `a | b` in `tmp`, so
//   `tmp` is row-major with the destination's dtype and exactly its valid region; it also
//   asserts that dst, src0, src1 and tmp are four different buffers (dst may not be a
//   source). Its TXORS (`npu/a2a3/TBitwiseSOp.hpp`) does the same with the scalar and
//   asserts dst, src and tmp are three different buffers.
// - The CPU simulation's TXORS (`cpu/TBinSOps.hpp`) takes `tmp` as `TileDst&`: the
//   destination's exact tile type. Its TXOR takes any tile and ignores it.
// - A5 (`npu/a5/TXor.hpp`, `TXorS.hpp`) ignores `tmp`; TXOR takes 1-, 2- and 4-byte
//   integers, TXORS any 1-, 2- or 4-byte element.
template <typename D, typename A, typename B, typename Tmp, typename... E>
  requires is_tile<B>::value && is_tile<Tmp>::value
RecordEvent TXOR(D& dst, A& a, B& b, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  static_assert(model::vec_row_major<D> && model::vec_row_major<A> && model::vec_row_major<B>,
                "TXOR: operands must be row-major Vec tiles");
  static_assert(std::is_same_v<typename D::DType, typename A::DType> && std::is_same_v<typename D::DType, typename B::DType>,
                "TXOR: operands must have one dtype");
  static_assert(model::takes_TXOR<typename D::DType>, "TXOR: the target's TXOR does not take this element type");
#if !defined(PTO_TARGET_A5)
  static_assert(model::vec_row_major<Tmp> && std::is_same_v<typename Tmp::DType, typename D::DType>,
                "TXOR: on A2A3 tmp is a row-major tile of the destination's dtype");
  if (tmp.GetValidRow() != dst.GetValidRow() || tmp.GetValidCol() != dst.GetValidCol())
    model::fail("TXOR: tmp's valid region is not the destination's (A2A3)");
  if (model::overlap(dst, a) || model::overlap(dst, b)) model::fail("TXOR: dst overlaps a source (A2A3)");
#endif
  if (model::overlap(tmp, a) || model::overlap(tmp, b) || model::overlap(tmp, dst)) model::fail("TXOR: tmp overlaps an operand");
  using T = typename D::DType;
  model::each(dst, [&](int64_t i, int64_t j) { return T(T(a.at(i, j)) ^ T(b.at(i, j))); });
  model::clobber(tmp);
  return {};
}
template <typename D, typename S, typename Tmp, typename... E>
  requires is_tile<Tmp>::value
RecordEvent TXORS(D& dst, S& src, typename S::DType k, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  static_assert(model::vec_row_major<D> && model::vec_row_major<S>, "TXORS: tile-scalar instructions need row-major Vec tiles");
  static_assert(std::is_same_v<typename D::DType, typename S::DType>, "TXORS: operands must have one dtype");
  static_assert(model::takes_TXORS<typename D::DType>, "TXORS: the target's TXORS does not take this element type");
  static_assert(std::is_same_v<Tmp, D>, "TXORS: tmp has the destination's tile type (CPU simulation)");
#if !defined(PTO_TARGET_A5)
  if (tmp.GetValidRow() != dst.GetValidRow() || tmp.GetValidCol() != dst.GetValidCol())
    model::fail("TXORS: tmp's valid region is not the destination's (A2A3)");
  if (model::overlap(dst, src)) model::fail("TXORS: dst overlaps the source (A2A3)");
#endif
  if (model::overlap(tmp, src) || model::overlap(tmp, dst)) model::fail("TXORS: tmp overlaps an operand");
  using T = typename D::DType;
  model::each(dst, [&](int64_t i, int64_t j) { return T(T(src.at(i, j)) ^ k); });
  model::clobber(tmp);
  return {};
}

// TPOW / TPOWS (docs/isa/TPOW.md): `(dst, base, exp, tmp)` and `(dst, base, k, tmp)`, Vec
// tiles of one dtype and a scratch tile; the destination's valid region is the domain.
template <typename D, typename A, typename B, typename Tmp, typename... E>
  requires is_tile<B>::value
RecordEvent TPOW(D& dst, A& a, B& b, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  static_assert(model::takes_TPOW<typename D::DType>, "TPOW: the target's TPOW does not take this element type");
  static_assert(model::vec_row_major<D> && model::vec_row_major<A> && model::vec_row_major<B>,
                "TPOW: row-major Vec tiles");
  static_assert(std::is_same_v<typename D::DType, typename A::DType> && std::is_same_v<typename D::DType, typename B::DType>,
                "TPOW: one dtype");
  static_assert(Tmp::Loc_ == TileType::Vec, "TPOW: tmp is a Vec tile");
  if (model::overlap(tmp, a) || model::overlap(tmp, b) || model::overlap(tmp, dst)) model::fail("TPOW: tmp overlaps an operand");
  model::each(dst, [&](int64_t i, int64_t j) { return model::pow_(a.at(i, j), b.at(i, j)); });
  model::clobber(tmp);
  return {};
}
template <typename D, typename A, typename Tmp, typename... E>
RecordEvent TPOWS(D& dst, A& a, typename D::DType k, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  static_assert(model::takes_TPOWS<typename D::DType>, "TPOWS: the target's TPOWS does not take this element type");
  static_assert(model::vec_row_major<D> && model::vec_row_major<A>, "TPOWS: row-major Vec tiles");
  static_assert(Tmp::Loc_ == TileType::Vec, "TPOWS: tmp is a Vec tile");
  if (model::overlap(tmp, a) || model::overlap(tmp, dst)) model::fail("TPOWS: tmp overlaps an operand");
  model::each(dst, [&](int64_t i, int64_t j) { return model::pow_(typename D::DType(a.at(i, j)), k); });
  model::clobber(tmp);
  return {};
}

// Masks (pto-isa.md 6.2 / 6.4: TCMP, TCMPS, TSEL, TSELS). A mask is a packed bit tile of
// uint8_t: row i holds the flag of column j in bit j % 8 of byte j / 8 (from its first
// byte; the rest of the row is padding). TCMP / TCMPS write the flags over the source's
// valid region; TSEL / TSELS read them over the destination's (their element types:
// `takes_TCMP` ...). The other tile instructions treat a mask as bytes (TAND / TOR / TXOR /
// TNOT combine masks bitwise).
enum class CmpMode { EQ, NE, LT, LE, GT, GE };
namespace model {
template <typename T> bool holds(CmpMode mode, T a, T b) {
  using F = std::conditional_t<std::is_integral_v<T>, T, float>;
  const F x = F(a), y = F(b);
  switch (mode) {
    case CmpMode::EQ: return x == y;
    case CmpMode::NE: return x != y;
    case CmpMode::LT: return x < y;
    case CmpMode::LE: return x <= y;
    case CmpMode::GT: return x > y;
    default: return x >= y;
  }
}
template <typename M> void set_flag(M& mask, int64_t i, int64_t j, bool v) {
  uint8_t& byte = mask.at(i, j / 8);
  byte = uint8_t(v ? byte | (1u << (j % 8)) : byte & ~(1u << (j % 8)));
}
template <typename M> bool flag(const M& mask, int64_t i, int64_t j) { return (mask.at(i, j / 8) >> (j % 8)) & 1u; }
template <typename M, typename S> void check_mask() {
  static_assert(vec_row_major<M> && std::is_same_v<typename M::DType, uint8_t>, "a mask is a row-major Vec tile of uint8_t");
  static_assert(M::Rows_ >= S::Rows_ && M::Cols_ * 8 >= S::Cols_, "the mask has a bit per element");
}
}  // namespace model
template <typename M, typename A, typename B, typename... E>
  requires is_tile<B>::value
RecordEvent TCMP(M& mask, A& a, B& b, CmpMode mode, E&...) {
  PTO_EVENTS(E);
  model::check_mask<M, A>();
  static_assert(model::vec_row_major<A> && model::vec_row_major<B> && std::is_same_v<typename A::DType, typename B::DType>,
                "TCMP: row-major Vec sources of one dtype");
  static_assert(model::takes_TCMP<typename A::DType>, "TCMP: the target's TCMP does not take this element type");
  if (a.GetValidRow() != b.GetValidRow() || a.GetValidCol() != b.GetValidCol()) model::fail("TCMP: source valid regions differ");
  for (int64_t i = 0; i < a.GetValidRow(); ++i)
    for (int64_t j = 0; j < a.GetValidCol(); ++j) model::set_flag(mask, i, j, model::holds(mode, a.at(i, j), b.at(i, j)));
  return {};
}
template <typename M, typename A, typename... E>
RecordEvent TCMPS(M& mask, A& a, typename A::DType k, CmpMode mode, E&...) {
  PTO_EVENTS(E);
  model::check_mask<M, A>();
  static_assert(model::vec_row_major<A>, "TCMPS: a row-major Vec source");
  static_assert(model::takes_TCMPS<typename A::DType>, "TCMPS: the target's TCMPS does not take this element type");
  for (int64_t i = 0; i < a.GetValidRow(); ++i)
    for (int64_t j = 0; j < a.GetValidCol(); ++j) model::set_flag(mask, i, j, model::holds(mode, a.at(i, j), k));
  return {};
}
template <typename D, typename M, typename A, typename B, typename Tmp, typename... E>
  requires is_tile<B>::value
RecordEvent TSEL(D& dst, M& mask, A& a, B& b, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  // pto-isa's TSEL has one template parameter for the destination and both alternatives
  // (include/pto/common/pto_instr.hpp: `TSEL(TileData& dst, MaskTile&, TileData& src0,
  // TileData& src1, TmpTile&, ..)`), so the three must be one tile type, valid dimensions
  // included.
  static_assert(std::is_same_v<D, A> && std::is_same_v<D, B>, "TSEL: dst, src0 and src1 are one tile type");
  model::check_mask<M, D>();
  static_assert(model::vec_row_major<D> && model::vec_row_major<A> && model::vec_row_major<B>, "TSEL: row-major Vec tiles");
  static_assert(std::is_same_v<typename D::DType, typename A::DType> && std::is_same_v<typename D::DType, typename B::DType>,
                "TSEL: one dtype");
  static_assert(model::takes_TSEL<typename D::DType>, "TSEL: the target's TSEL does not take this element type");
  static_assert(Tmp::Loc_ == TileType::Vec, "TSEL: tmp is a Vec tile");
  if (model::overlap(tmp, mask) || model::overlap(tmp, dst)) model::fail("TSEL: tmp overlaps an operand");
  model::each(dst, [&](int64_t i, int64_t j) { return model::flag(mask, i, j) ? a.at(i, j) : b.at(i, j); });
  model::clobber(tmp);
  return {};
}
template <typename D, typename M, typename A, typename Tmp, typename... E>
RecordEvent TSELS(D& dst, M& mask, A& a, Tmp& tmp, typename A::DType k, E&...) {
  PTO_EVENTS(E);
  model::check_mask<M, D>();
  static_assert(model::vec_row_major<D> && model::vec_row_major<A>, "TSELS: row-major Vec tiles");
  static_assert(model::takes_TSELS<typename D::DType>, "TSELS: the target's TSELS does not take this element type");
  static_assert(Tmp::Loc_ == TileType::Vec, "TSELS: tmp is a Vec tile");
  if (model::overlap(tmp, mask) || model::overlap(tmp, dst)) model::fail("TSELS: tmp overlaps an operand");
  model::each(dst, [&](int64_t i, int64_t j) { return model::flag(mask, i, j) ? a.at(i, j) : k; });
  model::clobber(tmp);
  return {};
}

// TEXPANDS (pto-isa.md 6.4, 9.7): fills a Vec tile's valid region or a whole Mat tile; not
// an Acc tile (an accumulator starts from TMATMUL).
template <typename D, typename... E> RecordEvent TEXPANDS(D& dst, typename D::DType k, E&...) {
  PTO_EVENTS(E);
  static_assert(model::takes_TEXPANDS<typename D::DType>, "TEXPANDS: the target's TEXPANDS does not take this element type");
  static_assert(D::Loc_ == TileType::Vec || D::Loc_ == TileType::Mat, "TEXPANDS: fills Vec or Mat tiles only");
  static_assert(D::Loc_ != TileType::Vec || D::isRowMajor, "TEXPANDS: a Vec tile must be row-major");
  if constexpr (D::Loc_ == TileType::Mat) {
    for (int64_t i = 0; i < D::Rows_; ++i)
      for (int64_t j = 0; j < D::Cols_; ++j) dst.at(i, j) = k;
  } else {
    model::each(dst, [&](int64_t, int64_t) { return k; });
  }
  return {};
}

// Unary instructions (pto-isa.md 6.3): row-major Vec tiles, equal valid regions.
#define PTO_UNARY(NAME, EXPR)                                                               \
  template <typename D, typename S, typename... E> RecordEvent NAME(D& dst, S& src, E&...) { \
    PTO_EVENTS(E);                                                                          \
    static_assert(model::takes_##NAME<typename D::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    static_assert(model::vec_row_major<D> && model::vec_row_major<S>,                       \
                  #NAME ": unary instructions need row-major Vec tiles");                  \
    using T = typename D::DType;                                                            \
    model::each(dst, [&](int64_t i, int64_t j) {                                            \
      T x = src.at(i, j);                                                                   \
      return EXPR;                                                                          \
    });                                                                                     \
    return {};                                                                              \
  }
PTO_UNARY(TNEG, model::wrap_sub(T(0), x))
PTO_UNARY(TABS, (x < T(0) ? model::wrap_sub(T(0), x) : x))
PTO_UNARY(TRELU, (x > T(0) ? x : T(0)))
PTO_UNARY(TEXP, T(std::exp(model::arith<T>(x))))
PTO_UNARY(TLOG, T(std::log(model::arith<T>(x))))
PTO_UNARY(TSQRT, T(std::sqrt(model::arith<T>(x))))
PTO_UNARY(TRSQRT, T(model::arith<T>(1) / std::sqrt(model::arith<T>(x))))
PTO_UNARY(TRECIP, T(model::arith<T>(1) / model::arith<T>(x)))
PTO_UNARY(TNOT, T(~x))
#undef PTO_UNARY

// TMOV (pto-isa.md 6.8, 9.7): the legal location pairs per target.
template <TileType From, TileType To> constexpr bool move_legal() {
  if (From == TileType::Mat &&
      (To == TileType::Left || To == TileType::Right || To == TileType::Bias || To == TileType::Scaling))
    return true;
  if (From == TileType::Vec && To == TileType::Vec) return true;
  if (From == TileType::Acc && To == TileType::Mat) return true;
#if defined(PTO_TARGET_A5)
  if (From == TileType::Acc && To == TileType::Vec) return true;
  if (From == TileType::Vec && To == TileType::Mat) return true;
#endif
  return false;
}
template <typename D, typename S, typename... E> RecordEvent TMOV(D& dst, S& src, E&...) {
  PTO_EVENTS(E);
  static_assert(move_legal<S::Loc_, D::Loc_>(), "TMOV: this pair of tile locations is not legal on the target");
  static_assert(std::is_same_v<typename D::DType, typename S::DType> || S::Loc_ == TileType::Acc,
                "TMOV: one dtype (except from Acc)");
  model::each(dst, [&](int64_t i, int64_t j) { return typename D::DType(src.at(i, j)); });
  return {};
}

// Row reductions (pto-isa.md 6.5, 9.6): `TROWSUM(dst, src, tmp)`; src a row-major unboxed
// Vec tile, dst row-major or an `R x 1` column-major column, tmp a scratch tile of the
// source's type that A2A3 overwrites (so it may not be the source). A row sum adds in the
// order pto-rs's semantics fix (`pto::isa::lane_sum`, the interpreter's `lane_sum`; pto-isa
// does not document one): 16 partial sums from 0, lane `l` taking elements `l, l + 16, ..`
// of the whole groups of 16, combined by halves, then the rest in order. The others fold
// left to right.
// TROWSUM alone also needs the source's static rows to be the destination's: pto-isa's CPU
// simulation asserts it (cpu/TRowSum.hpp, CheckRSValid: "Inconsistent number of m, n"), so
// an `R x 1` column result, whose rows are padded to 32 bytes (8 for fp32, 16 for fp16),
// needs a source of as many rows. Its NPU forms (npu/a2a3/TRowReduceOps.hpp and
// npu/a5/TRowReduce.hpp, TRowReduceCheck) compare only the valid rows, at run time, and
// TROWMAX / TROWMIN / TROWPROD assert nothing of the kind anywhere.
namespace model {
template <typename T, typename Tile>
T lane_sum(Tile& src, int64_t i) {
  constexpr int64_t L = 16;
  const int64_t n = src.GetValidCol(), whole = n / L * L;
  T lane[L];
  for (int64_t l = 0; l < L; ++l) lane[l] = T(0);
  for (int64_t j = 0; j < whole; ++j) lane[j % L] = wrap_add(lane[j % L], T(src.at(i, j)));
  for (int64_t w = L / 2; w > 0; w /= 2)
    for (int64_t l = 0; l < w; ++l) lane[l] = wrap_add(lane[l], lane[l + w]);
  T acc = lane[0];
  for (int64_t j = whole; j < n; ++j) acc = wrap_add(acc, T(src.at(i, j)));
  return acc;
}
}  // namespace model
#define PTO_ROWRED(NAME, INIT, STEP, LANES, SAME_ROWS)                                          \
  template <typename D, typename S, typename Tmp, typename... E>                                \
  RecordEvent NAME(D& dst, S& src, Tmp& tmp, E&...) {                                           \
    PTO_EVENTS(E);                                                                              \
    static_assert(model::vec_row_major<S>, #NAME ": the source must be a row-major Vec tile"); \
    static_assert(model::takes_##NAME<typename S::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    static_assert(!SAME_ROWS || S::Rows_ == D::Rows_,                                           \
                  #NAME ": the source and the destination have the same static Rows");        \
    static_assert(D::Loc_ == TileType::Vec && (D::isRowMajor || D::Cols_ == 1),                 \
                  #NAME ": the destination is row-major or one column");                       \
    static_assert(Tmp::Loc_ == TileType::Vec && Tmp::Rows_ == S::Rows_ && Tmp::Cols_ == S::Cols_ && \
                      std::is_same_v<typename Tmp::DType, typename S::DType>,                   \
                  #NAME ": tmp has the source's shape and dtype");                             \
    using T = typename D::DType;                                                                \
    if (model::overlap(tmp, src) || model::overlap(tmp, dst)) model::fail(#NAME ": tmp overlaps an operand"); \
    if (dst.GetValidRow() != src.GetValidRow()) model::fail(#NAME ": dst and src valid rows differ"); \
    for (int64_t i = 0; i < dst.GetValidRow(); ++i) {                                           \
      T acc = INIT;                                                                             \
      if constexpr (LANES) {                                                                    \
        acc = model::lane_sum<T>(src, i);                                                       \
      } else {                                                                                  \
        for (int64_t j = 0; j < src.GetValidCol(); ++j) {                                       \
          T x = src.at(i, j);                                                                   \
          acc = j == 0 ? x : STEP;                                                              \
        }                                                                                       \
      }                                                                                         \
      dst.at(i, 0) = acc;                                                                       \
    }                                                                                           \
    model::clobber(tmp);                                                                        \
    return {};                                                                                  \
  }
PTO_ROWRED(TROWSUM, T(0), model::wrap_add(acc, x), true, true)
PTO_ROWRED(TROWMAX, T(0), model::max_(acc, x), false, false)
PTO_ROWRED(TROWMIN, T(0), model::min_(acc, x), false, false)
PTO_ROWRED(TROWPROD, T(0), model::wrap_mul(acc, x), false, false)
#undef PTO_ROWRED

// TROWARGMAX / TROWARGMIN (docs/isa/TROWARGMAX.md): `(dst, src, tmp)`, dst an int32 (or
// uint32) index per row, src a row-major Vec tile, tmp scratch. The first index wins a tie
// and a NaN never wins (an all-NaN row gives 0), the rule pto-rs defines
// (`pto_ir::sem::arg`).
#define PTO_ROWARG(NAME, BETTER)                                                                \
  template <typename D, typename S, typename Tmp, typename... E>                                \
  RecordEvent NAME(D& dst, S& src, Tmp& tmp, E&...) {                                           \
    PTO_EVENTS(E);                                                                              \
    static_assert(model::vec_row_major<S>, #NAME ": the source must be a row-major Vec tile"); \
    static_assert(model::takes_##NAME<typename S::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    static_assert(D::Loc_ == TileType::Vec && (D::isRowMajor || D::Cols_ == 1),                 \
                  #NAME ": the destination is row-major or one column");                       \
    static_assert(std::is_same_v<typename D::DType, int32_t> || std::is_same_v<typename D::DType, uint32_t>, \
                  #NAME ": the index tile is int32_t or uint32_t");                            \
    static_assert(Tmp::Loc_ == TileType::Vec, #NAME ": tmp is a Vec tile");                    \
    if (model::overlap(tmp, src) || model::overlap(tmp, dst)) model::fail(#NAME ": tmp overlaps an operand"); \
    if (dst.GetValidRow() != src.GetValidRow()) model::fail(#NAME ": dst and src valid rows differ"); \
    for (int64_t i = 0; i < dst.GetValidRow(); ++i) {                                           \
      int64_t at = 0;                                                                           \
      for (int64_t j = 1; j < src.GetValidCol(); ++j) {                                         \
        const auto x = src.at(i, j), b = src.at(i, at);                                         \
        if (BETTER) at = j;                                                                     \
      }                                                                                         \
      dst.at(i, 0) = typename D::DType(at);                                                     \
    }                                                                                           \
    model::clobber(tmp);                                                                        \
    return {};                                                                                  \
  }
PTO_ROWARG(TROWARGMAX, (x > b || (b != b && x == x)))
PTO_ROWARG(TROWARGMIN, (x < b || (b != b && x == x)))
#undef PTO_ROWARG

// Column reductions (pto-isa.md 9.4): `(dst, src)`, and TCOLSUM also `(dst, src, tmp,
// isBinary)`; their element types `takes_TCOLSUM` ...
#define PTO_COLRED(NAME, STEP)                                                                   \
  template <typename D, typename S, typename... E> RecordEvent NAME(D& dst, S& src, E&...) {      \
    PTO_EVENTS(E);                                                                               \
    static_assert(model::vec_row_major<S> && model::vec_row_major<D>,                            \
                  #NAME ": row-major Vec tiles");                                               \
    static_assert(model::takes_##NAME<typename S::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    using T = typename D::DType;                                                                 \
    if (dst.GetValidCol() != src.GetValidCol()) model::fail(#NAME ": dst and src valid columns differ"); \
    for (int64_t j = 0; j < dst.GetValidCol(); ++j) {                                            \
      T acc = T(0);                                                                              \
      for (int64_t i = 0; i < src.GetValidRow(); ++i) {                                          \
        T x = src.at(i, j);                                                                      \
        acc = i == 0 ? x : STEP;                                                                 \
      }                                                                                          \
      dst.at(0, j) = acc;                                                                        \
    }                                                                                            \
    return {};                                                                                   \
  }
PTO_COLRED(TCOLSUM, model::wrap_add(acc, x))
PTO_COLRED(TCOLMAX, model::max_(acc, x))
PTO_COLRED(TCOLMIN, model::min_(acc, x))
PTO_COLRED(TCOLPROD, model::wrap_mul(acc, x))
#undef PTO_COLRED
template <typename D, typename S, typename Tmp, typename... E>
  requires is_tile<Tmp>::value
RecordEvent TCOLSUM(D& dst, S& src, Tmp& tmp, bool is_binary, E&... e) {
  (void)is_binary;
  TCOLSUM(dst, src, e...);
  model::clobber(tmp);
  return {};
}

// Broadcasts (pto-isa.md 6.6).
template <typename D, typename S, typename... E> RecordEvent TROWEXPAND(D& dst, S& src, E&...) {
  PTO_EVENTS(E);
  static_assert(model::vec_row_major<D> && S::Loc_ == TileType::Vec, "TROWEXPAND: Vec tiles");
  static_assert(model::takes_TROWEXPAND<typename D::DType>, "TROWEXPAND: the target's TROWEXPAND does not take this element type");
  model::each(dst, [&](int64_t i, int64_t) { return src.at(i, 0); });
  return {};
}
template <typename D, typename S, typename... E> RecordEvent TCOLEXPAND(D& dst, S& src, E&...) {
  PTO_EVENTS(E);
  static_assert(model::vec_row_major<D> && model::vec_row_major<S>, "TCOLEXPAND: row-major Vec tiles");
  static_assert(model::takes_TCOLEXPAND<typename D::DType>, "TCOLEXPAND: the target's TCOLEXPAND does not take this element type");
  model::each(dst, [&](int64_t, int64_t j) { return src.at(0, j); });
  return {};
}
// The row forms' per-row operand (cpu/TRowExpandOp.hpp, npu/a2a3/TRowExpand{Add,Sub,..}.hpp,
// A5's alike; checked at run time): a column (ColMajor, one valid column) or one 32-byte
// block per row (RowMajor, 32 / sizeof(T) valid columns: the NPU applies the whole block
// along the row, so a row-major operand of one valid column is refused), with the
// destination's valid rows.
namespace model {
template <typename T, typename V> void check_per_row(const char* name, const V& v, int64_t rows) {
  const bool shape = V::isRowMajor ? v.GetValidCol() == int64_t(32 / sizeof(T)) : v.GetValidCol() == 1;
  if (!shape) fail(name, ": the per-row operand is a column or one 32-byte block per row");
  if (v.GetValidRow() != rows) fail(name, ": the per-row operand has the destination's valid rows");
}
// A2A3's fixed temporary (pto-isa include/pto/common/constants.hpp, TMP_UB_OFFSET and
// TMP_UB_SIZE; npu/a2a3/TRowExpandBinOp.hpp, TRowExpandBin): a row broadcast whose per-row
// operand is column-major uses bytes 184..192 KiB of the unified buffer as scratch, whatever
// tiles lie there. The model refuses an operand there and overwrites the range, so a live
// tile placed over it reads garbage afterwards. A5 (npu/a5/) has no such temporary.
constexpr uint64_t a2a3_tmp_ub_offset = 184 * 1024;
constexpr uint64_t a2a3_tmp_ub_size = 8 * 1024;
template <typename X> bool over_fixed_temp(const X& x) {
  if (X::Loc_ != TileType::Vec || !x.data_) return false;
  const uint64_t at = reinterpret_cast<const uint8_t*>(x.data_) - buffer(TileType::Vec);
  const uint64_t end = at + uint64_t(X::Rows_) * X::Cols_ * sizeof(typename X::DType);
  return at < a2a3_tmp_ub_offset + a2a3_tmp_ub_size && a2a3_tmp_ub_offset < end;
}
template <typename D, typename A, typename V> void fixed_temp(const char* name, const D& d, const A& a, const V& v) {
#if defined(PTO_TARGET_A2A3)
  if constexpr (!V::isRowMajor) {
    if (over_fixed_temp(d) || over_fixed_temp(a) || over_fixed_temp(v))
      fail(name, ": a tile over A2A3's fixed temporary (bytes 184..192 KiB of Vec)");
    std::memset(buffer(TileType::Vec) + a2a3_tmp_ub_offset, 0xff, a2a3_tmp_ub_size);
  }
#endif
}
}  // namespace model
#define PTO_EXPAND_OP(NAME, ROW, EXPR)                                                            \
  template <typename D, typename A, typename V, typename... E> RecordEvent NAME(D& dst, A& a, V& v, E&...) { \
    PTO_EVENTS(E);                                                                                \
    static_assert(model::vec_row_major<D> && model::vec_row_major<A> && V::Loc_ == TileType::Vec, \
                  #NAME ": row-major Vec tiles and a Vec vector");                               \
    static_assert(model::takes_##NAME<typename D::DType>, #NAME ": the target's " #NAME " does not take this element type"); \
    using T = typename D::DType;                                                                  \
    if constexpr (ROW) model::check_per_row<T>(#NAME, v, dst.GetValidRow());                      \
    model::each(dst, [&](int64_t i, int64_t j) {                                                  \
      T x = a.at(i, j), y = ROW ? T(v.at(i, 0)) : T(v.at(0, j));                                  \
      return EXPR;                                                                                \
    });                                                                                           \
    if constexpr (ROW) model::fixed_temp(#NAME, dst, a, v);                                       \
    return {};                                                                                    \
  }
PTO_EXPAND_OP(TROWEXPANDADD, true, model::wrap_add(x, y))
PTO_EXPAND_OP(TROWEXPANDSUB, true, model::wrap_sub(x, y))
PTO_EXPAND_OP(TROWEXPANDMUL, true, model::wrap_mul(x, y))
PTO_EXPAND_OP(TROWEXPANDDIV, true, model::div_(x, y))
PTO_EXPAND_OP(TROWEXPANDMAX, true, model::max_(x, y))
PTO_EXPAND_OP(TROWEXPANDMIN, true, model::min_(x, y))
PTO_EXPAND_OP(TCOLEXPANDADD, false, model::wrap_add(x, y))
PTO_EXPAND_OP(TCOLEXPANDSUB, false, model::wrap_sub(x, y))
PTO_EXPAND_OP(TCOLEXPANDMUL, false, model::wrap_mul(x, y))
PTO_EXPAND_OP(TCOLEXPANDDIV, false, model::div_(x, y))
PTO_EXPAND_OP(TCOLEXPANDMAX, false, model::max_(x, y))
PTO_EXPAND_OP(TCOLEXPANDMIN, false, model::min_(x, y))
#undef PTO_EXPAND_OP

// TTRANS (pto-isa.md 6.8, 9.6): `(dst, src, tmp)`, over the source's valid region; tmp is
// scratch.
template <typename D, typename S, typename Tmp, typename... E> RecordEvent TTRANS(D& dst, S& src, Tmp& tmp, E&...) {
  PTO_EVENTS(E);
  static_assert(model::vec_row_major<S> && model::vec_row_major<D>, "TTRANS: row-major Vec tiles");
  static_assert(model::takes_TTRANS<typename S::DType>, "TTRANS: the target's TTRANS does not take this element type");
  static_assert(Tmp::Rows_ == S::Rows_ && Tmp::Cols_ == S::Cols_, "TTRANS: tmp has the source's shape");
  // pto-isa's CPU simulation (its TTRANS over two tiles) asserts the valid dimensions mirror
  // as template arguments, DYNAMIC included; the NPU code reads them at run time.
  static_assert(S::ValidRow_ == D::ValidCol_ && S::ValidCol_ == D::ValidRow_,
                "TTRANS: the source's valid dimensions mirror the destination's (static or DYNAMIC alike)");
  if (model::overlap(tmp, src) || model::overlap(tmp, dst)) model::fail("TTRANS: tmp overlaps an operand");
  model::each(dst, [&](int64_t i, int64_t j) { return src.at(j, i); });
  model::clobber(tmp);
  return {};
}

// Matrix multiply (pto-isa.md 6.7): C (Acc) from A (Left) and B (Right); m = A's valid
// rows, n = B's valid columns, k = A's valid columns (B's valid rows must cover it).
// Each element is pto-rs's definition (pto_ir::sem::MatmulStep): the inputs widened exactly,
// then in k order a float accumulator takes one fused multiply-add per step (std::fma, one
// rounding), an integer one a wrapping multiply and add. pto-isa's docs do not say how the
// cube rounds or orders its sums (the NPU adds within its fractal blocks in its own order,
// and SETHF32MODE / SETTF32MODE can narrow fp32 inputs), so an NPU's f32 bits may differ
// from this model's; this is the meaning the interpreter and the CPU runtime share.
template <typename C, typename A, typename B> void matmul_into(C& c, A& a, B& b, bool acc_in) {
  static_assert(C::Loc_ == TileType::Acc && A::Loc_ == TileType::Left && B::Loc_ == TileType::Right,
                "TMATMUL: Acc = Left x Right");
  using Acc = typename C::DType;
  const int64_t m = a.GetValidRow(), n = b.GetValidCol();
  const int64_t k = a.GetValidCol() < b.GetValidRow() ? a.GetValidCol() : b.GetValidRow();
  if (m > C::Rows_ || n > C::Cols_) model::fail("TMATMUL: product larger than the accumulator");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      Acc s = acc_in ? Acc(c.at(i, j)) : Acc(0);
      for (int64_t p = 0; p < k; ++p) {
        if constexpr (std::is_floating_point_v<Acc>) {
          s = std::fma(Acc(float(a.at(i, p))), Acc(float(b.at(p, j))), s);
        } else {
          using U = std::make_unsigned_t<Acc>;
          s = Acc(U(s) + U(Acc(a.at(i, p))) * U(Acc(b.at(p, j))));
        }
      }
      c.at(i, j) = s;
    }
}
template <typename C, typename A, typename B, typename... E> RecordEvent TMATMUL(C& c, A& a, B& b, E&...) {
  PTO_EVENTS(E);
  static_assert(model::multiplies<typename A::DType, typename C::DType>, "TMATMUL: the targets' cube does not multiply these input and accumulator types");
  matmul_into(c, a, b, false);
  return {};
}
template <typename C, typename CIn, typename A, typename B, typename... E>
RecordEvent TMATMUL_ACC(C& c, CIn& c_in, A& a, B& b, E&...) {
  PTO_EVENTS(E);
  static_assert(model::multiplies<typename A::DType, typename C::DType>, "TMATMUL_ACC: the targets' cube does not multiply these input and accumulator types");
  static_assert(CIn::Loc_ == TileType::Acc, "TMATMUL_ACC: the input accumulator is an Acc tile");
  if (c.data_ != c_in.data_) {
    for (int64_t i = 0; i < c_in.GetValidRow(); ++i)
      for (int64_t j = 0; j < c_in.GetValidCol(); ++j) c.at(i, j) = c_in.at(i, j);
  }
  matmul_into(c, a, b, true);
  return {};
}
template <typename C, typename A, typename B, typename Bias, typename... E>
RecordEvent TMATMUL_BIAS(C& c, A& a, B& b, Bias& bias, E&...) {
  PTO_EVENTS(E);
  static_assert(model::multiplies<typename A::DType, typename C::DType>, "TMATMUL_BIAS: the targets' cube does not multiply these input and accumulator types");
  static_assert(Bias::Loc_ == TileType::Bias, "TMATMUL_BIAS: the bias is a Bias tile");
  for (int64_t i = 0; i < a.GetValidRow(); ++i)
    for (int64_t j = 0; j < b.GetValidCol(); ++j) c.at(i, j) = typename C::DType(bias.at(0, j));
  matmul_into(c, a, b, true);
  return {};
}

namespace model {
// `x` rounded to an integral value in `mode`'s direction (the semantics module's
// `RoundMode::to_integral`; CAST_NONE to nearest even).
inline double integral(double x, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_ROUND: return std::round(x);
    case RoundMode::CAST_FLOOR: return std::floor(x);
    case RoundMode::CAST_CEIL: return std::ceil(x);
    case RoundMode::CAST_TRUNC: return std::trunc(x);
    case RoundMode::CAST_ODD: {
      const double t = std::trunc(x);
      return t == x || std::fmod(t, 2.0) != 0.0 ? t : t + (x < 0 ? -1.0 : 1.0);
    }
    default: return std::nearbyint(x);
  }
}
// `x` rounded to float type T in `mode`'s direction (the semantics module's
// `round_to_format`): to a multiple of the spacing of T's values around x, then past T's
// largest finite value to infinity for the nearest modes and toward it for the others.
template <typename T> T to_float(double x, RoundMode mode) {
  if constexpr (std::is_same_v<T, double>) {
    return x;
  } else {
    constexpr bool h = std::is_same_v<T, half>, b = std::is_same_v<T, bfloat16_t>;
    constexpr int frac = h ? 10 : b ? 7 : 23, emin = h ? -14 : -126, emax = h ? 15 : 127;
    if (!std::isfinite(x) || x == 0.0) return from_f<T>(x);
    const double q = std::ldexp(1.0, std::max(std::ilogb(x), emin) - frac);
    const double r = integral(x / q, mode) * q;
    const double top = (2.0 - std::ldexp(1.0, -frac)) * std::ldexp(1.0, emax);
    if (std::fabs(r) <= top) return from_f<T>(r);
    bool inf = mode == RoundMode::CAST_RINT || mode == RoundMode::CAST_ROUND || mode == RoundMode::CAST_NONE;
    if (mode == RoundMode::CAST_FLOOR) inf = x < 0;
    if (mode == RoundMode::CAST_CEIL) inf = x > 0;
    const double mag = inf ? INFINITY : top;
    return from_f<T>(x > 0 ? mag : -mag);
  }
}
}  // namespace model

// TCVT (pto-isa.md 6.3): dtype conversion with a rounding mode (the semantics module's
// `convert_elem`). A float type to itself with a mode rounds to an integral value in that
// mode (`a.floor_div(b)` on float tiles is a division and such a cast); the lowering emits
// no TCVT without a mode there (pto-isa's default rounds to nearest, the semantics' `none`
// keeps the value). Float to integer rounds in the mode and saturates, NaN to 0; CAST_NONE
// truncates (pto-isa's default, Rust's `as`). Anything to a float rounds in the mode.
// SaturationMode (common/type.hpp): whether a narrowing conversion clamps to the
// destination's range (ON) or keeps the low bits (OFF); pto-isa's default saturates a
// narrowing integer conversion (A5's kIsNarrowingCvt), so the emitter passes OFF for integer
// to integer, whose meaning is Rust's wrapping `as`.
enum class SaturationMode : uint8_t { ON, OFF };
template <typename D, typename S, typename... E>
RecordEvent TCVT(D& dst, S& src, RoundMode mode, SaturationMode sat, E&... e);
template <typename D, typename S, typename... E> RecordEvent TCVT(D& dst, S& src, RoundMode mode, E&... e) {
  return TCVT(dst, src, mode, SaturationMode::ON, e...);
}
template <typename D, typename S, typename... E>
RecordEvent TCVT(D& dst, S& src, RoundMode mode, SaturationMode sat, E&...) {
  PTO_EVENTS(E);
  static_assert(model::converts<typename S::DType, typename D::DType>,
                "TCVT: the target's TCVT has no conversion between these element types");
  static_assert(model::vec_row_major<D> && model::vec_row_major<S>, "TCVT: row-major Vec tiles");
  using T = typename D::DType;
  constexpr bool same = std::is_same_v<T, typename S::DType>;
  if (same && !std::is_integral_v<T> && mode == RoundMode::CAST_NONE)
    model::fail("TCVT: a float to itself without a mode rounds to nearest on the NPU (not the identity)");
  model::each(dst, [&](int64_t i, int64_t j) {
    double x = double(src.at(i, j));
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_integral_v<typename S::DType>) {
        if (sat == SaturationMode::OFF) return static_cast<T>(src.at(i, j));  // two's complement wrap
      }
      if (std::isnan(x)) return T(0);
      x = model::integral(x, mode == RoundMode::CAST_NONE ? RoundMode::CAST_TRUNC : mode);
      if (x <= double(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
      if (x >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
      return static_cast<T>(x);
    } else {
      if (same) x = model::integral(x, mode);
      return model::to_float<T>(x, mode);
    }
  });
  return {};
}

// TEXTRACT / TINSERT (pto-isa.md 6.8): a window of a bigger tile. TEXTRACT's location
// pairs (pto-isa docs/isa/TEXTRACT.md, "A2A3 / A5 implementation checks" and "Vec -> Vec
// extraction path"): Mat -> Left / Right from a boxed source, and Vec -> Vec, on both
// targets; A5 adds Acc -> Mat, Acc -> Vec and Vec -> Mat. Nothing extracts from a Vec tile
// into Left / Right.
template <TileType From, TileType To> constexpr bool extract_legal() {
  if (From == TileType::Mat && (To == TileType::Left || To == TileType::Right)) return true;
  if (From == TileType::Vec && To == TileType::Vec) return true;
#if defined(PTO_TARGET_A5)
  if (From == TileType::Acc && (To == TileType::Mat || To == TileType::Vec)) return true;
  if (From == TileType::Vec && To == TileType::Mat) return true;
#endif
  return false;
}
// TEXTRACT into Left / Right reads whole fractal blocks (pto-isa npu/a2a3/TExtract.hpp with
// common/arch/memory/textract_common.hpp, and npu/a5/TExtract.hpp, for the tiles pto-lower
// declares: Mat boxed NZ unless one row, no compact mode; the same table is in
// pto-ir/src/verify/extract.rs). `c0` is one 32-byte line of elements, `v` one 512-byte
// fractal; as multiples of (rows, columns):
//   A2A3 Left:  offsets, window and source 16, c0.
//   A2A3 Right: offsets and source 16, 16 (32, 32 for int8); window 16, 16 (32, 16 int8).
//   A5 Left:    offsets 16, c0.
//   A5 Right:   offsets 16, c0; window and source 16, 16 (nothing more for int8).
//   Left from a one-row (unboxed) source, both targets: offset, window and source columns v.
//   Right from a one-row source: no such TEXTRACT.
// The shapes are static_asserts there and here. The offsets are PTO_ASSERTs on A2A3 (debug
// builds only) and on A5 are turned into block positions, the remainder dropped; the model
// stops the kernel on a misaligned offset, as pto-isa's debug build does on A2A3.
namespace model {
struct ExtractNeed {
  int off_r, off_c, win_r, win_c, src_r, src_c;
};
template <typename T> constexpr ExtractNeed extract_need(TileType to, bool one_row_source) {
  constexpr int b = sizeof(T), c0 = 32 / b;
  if (one_row_source) return {1, 512 / b, 1, 512 / b, 1, 512 / b};
#if defined(PTO_TARGET_A5)
  if (to == TileType::Left) return {16, c0, 1, 1, 1, 1};
  if (b == 1) return {16, c0, 1, 1, 1, 1};
  return {16, c0, 16, 16, 16, 16};
#else
  if (to == TileType::Left) return {16, c0, 16, c0, 16, c0};
  if (b == 1) return {32, 32, 32, 16, 32, 32};
  return {16, 16, 16, 16, 16, 16};
#endif
}
}  // namespace model
template <typename D, typename S, typename... E>
RecordEvent TEXTRACT(D& dst, S& src, uint16_t row, uint16_t col, E&...) {
  PTO_EVENTS(E);
  static_assert(std::is_same_v<typename D::DType, typename S::DType>, "TEXTRACT: one dtype");
  static_assert(extract_legal<S::Loc_, D::Loc_>(), "TEXTRACT: this pair of tile locations is not legal on the target");
  static_assert(S::Loc_ != TileType::Mat || S::isBoxed || S::Rows_ == 1,
                "TEXTRACT: a Mat source into Left / Right must be boxed (or one row, the GEMV case)");
  if constexpr (D::Loc_ == TileType::Left || D::Loc_ == TileType::Right) {
    static_assert(D::Loc_ == TileType::Left || S::isBoxed, "TEXTRACT: into Right from a boxed source only");
    constexpr model::ExtractNeed n = model::extract_need<typename D::DType>(D::Loc_, !S::isBoxed);
    static_assert(D::Rows_ % n.win_r == 0 && D::Cols_ % n.win_c == 0,
                  "TEXTRACT: the window is not whole blocks of the target's TEXTRACT");
    static_assert(S::Rows_ % n.src_r == 0 && S::Cols_ % n.src_c == 0,
                  "TEXTRACT: the source is not whole blocks of the target's TEXTRACT");
    if (row % n.off_r != 0 || col % n.off_c != 0)
      model::fail("TEXTRACT: offset not on the target's fractal blocks", D::Loc_ == TileType::Left ? "(Left)" : "(Right)");
  }
  if (row + D::Rows_ > S::Rows_ || col + D::Cols_ > S::Cols_) model::fail("TEXTRACT: window outside the source");
  model::each(dst, [&](int64_t i, int64_t j) { return src.at(row + i, col + j); });
  return {};
}
template <typename D, typename S, typename... E>
RecordEvent TINSERT(D& dst, S& src, uint16_t r0, uint16_t c0, E&...) {
  PTO_EVENTS(E);
  static_assert(std::is_same_v<typename D::DType, typename S::DType>, "TINSERT: one dtype");
  if (r0 + S::Rows_ > D::Rows_ || c0 + S::Cols_ > D::Cols_) model::fail("TINSERT: window outside the destination");
  for (int64_t i = 0; i < src.GetValidRow(); ++i)
    for (int64_t j = 0; j < src.GetValidCol(); ++j) dst.at(r0 + i, c0 + j) = src.at(i, j);
  return {};
}

// TFILLPAD_INPLACE (pto-isa.md TFILLPAD): every element of the tile outside src's valid
// region becomes the destination type's pad; Vec tiles of one dtype and shape over the same
// storage. A custom pad is an fp32 bit pattern, so only fp32 tiles take one.
template <typename D, typename S, typename... E> RecordEvent TFILLPAD_INPLACE(D& dst, S& src, E&...) {
  PTO_EVENTS(E);
  using T = typename D::DType;
  static_assert(D::Loc_ == TileType::Vec && S::Loc_ == TileType::Vec, "TFILLPAD_INPLACE: Vec tiles");
  static_assert(model::takes_TFILLPAD<typename D::DType>, "TFILLPAD_INPLACE: the target's TFILLPAD does not take this element type");
  static_assert(std::is_same_v<T, typename S::DType> && D::Rows_ == S::Rows_ && D::Cols_ == S::Cols_,
                "TFILLPAD_INPLACE: one dtype and shape");
  static_assert(D::Pad_ != PadValue::Null, "TFILLPAD: the destination type names no pad");
  constexpr uint64_t p = static_cast<uint64_t>(D::Pad_);
  static_assert(p < static_cast<uint64_t>(PadValue::CustomBase) || std::is_same_v<T, float>,
                "TFILLPAD: a custom pad is an fp32 value");
  if (dst.data_ != src.data_) model::fail("TFILLPAD_INPLACE: the tiles must share their storage");
  T pad{};
  if constexpr (p >= static_cast<uint64_t>(PadValue::CustomBase)) {
    pad = __builtin_bit_cast(float, static_cast<uint32_t>(p & 0xffffffffULL));
  } else if constexpr (D::Pad_ == PadValue::Max || D::Pad_ == PadValue::Min) {
    constexpr bool max = D::Pad_ == PadValue::Max;
    if constexpr (std::is_integral_v<T>) {
      pad = max ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
    } else {
      pad = T(max ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
    }
  }
  const int64_t vr = src.GetValidRow(), vc = src.GetValidCol();
  for (int64_t i = 0; i < D::Rows_; ++i)
    for (int64_t j = 0; j < D::Cols_; ++j)
      if (i >= vr || j >= vc) dst.at(i, j) = pad;
  return {};
}

// TRESHAPE (pto-isa.md TRESHAPE): `dst` becomes another tile type over `src`'s storage; one
// location, the same total bytes, both boxed or both not.
template <typename D, typename S, typename... E> RecordEvent TRESHAPE(D& dst, S& src, E&...) {
  PTO_EVENTS(E);
  static_assert(D::Loc_ == S::Loc_, "TRESHAPE: one tile location");
  static_assert(sizeof(typename D::DType) * D::Rows_ * D::Cols_ == sizeof(typename S::DType) * S::Rows_ * S::Cols_,
                "TRESHAPE: the total byte size must match");
  static_assert(D::isBoxed == S::isBoxed, "TRESHAPE: both boxed or both not");
  if (!src.data_) model::fail("TRESHAPE: the source has no storage (TASSIGN)");
  dst.data_ = reinterpret_cast<typename D::DType*>(src.data_);
  return {};
}

// TLOAD / TSTORE (pto-isa.md 6.1, 9.3): the GlobalTensor's shape equals the tile's valid
// region; Vec / Mat destinations; element sizes equal.
template <typename TileT, typename GT, typename... E> RecordEvent TLOAD(TileT& dst, GT& src, E&...) {
  PTO_EVENTS(E);
  static_assert(TileT::Loc_ == TileType::Vec || TileT::Loc_ == TileType::Mat, "TLOAD: into Vec or Mat tiles");
  static_assert(sizeof(typename TileT::DType) == sizeof(typename GT::DType), "TLOAD: element sizes differ");
  if (src.rows() != dst.GetValidRow() || src.cols() != dst.GetValidCol())
    model::fail("TLOAD: the GlobalTensor's shape is not the tile's valid region");
#if defined(PTO_TARGET_A2A3)
  if (TileT::Loc_ == TileType::Vec && (dst.GetValidRow() < 1 || dst.GetValidRow() > 4095))
    model::fail("TLOAD: Vec rows must be 1..4095 on A2A3");
#endif
  model::each(dst, [&](int64_t i, int64_t j) { return typename TileT::DType(src.at(i, j)); });
  return {};
}
// pto-isa.md TSTORE: an Acc tile is float or int32 and is written, without a quantisation
// scalar, as int32 / float / half / bfloat16 (the float-to-narrower conversions round to
// nearest even); an atomic add accumulates in half / float / int16 / int32 / int8 / bfloat16.
namespace model {
template <typename TileT, typename GT> constexpr bool store_legal() {
  using S = typename TileT::DType;
  using D = typename GT::DType;
  if constexpr (TileT::Loc_ != TileType::Acc) {
    return sizeof(S) == sizeof(D);
  } else {
    return (std::is_same_v<S, float> || std::is_same_v<S, int32_t>) &&
           (std::is_same_v<D, int32_t> || std::is_same_v<D, float> || std::is_same_v<D, half> ||
            std::is_same_v<D, bfloat16_t>);
  }
}
template <typename D> constexpr bool atomic_add_legal() { return takes_TSTORE_ADD<D>; }
// The store's element walk: `cvt` converts one element of the tile.
template <AtomicType A, typename GT, typename TileT, typename F> void store_each(GT& dst, TileT& src, F cvt) {
  static_assert(A == AtomicType::AtomicNone || atomic_add_legal<typename GT::DType>(),
                "TSTORE: atomic add into half / float / int16 / int32 / int8 / bfloat16 only");
  if (dst.rows() != src.GetValidRow() || dst.cols() != src.GetValidCol())
    fail("TSTORE: the GlobalTensor's shape is not the tile's valid region");
  using D = typename GT::DType;
  for (int64_t i = 0; i < src.GetValidRow(); ++i)
    for (int64_t j = 0; j < src.GetValidCol(); ++j) {
      const D x = cvt(src.at(i, j));
      if constexpr (A == AtomicType::AtomicAdd) {
        dst.at(i, j) = D(dst.at(i, j) + x);
      } else {
        dst.at(i, j) = x;
      }
    }
}
template <AtomicType A, typename GT, typename TileT> void store(GT& dst, TileT& src) {
  static_assert(TileT::Loc_ == TileType::Vec || TileT::Loc_ == TileType::Mat || TileT::Loc_ == TileType::Acc,
                "TSTORE: from Vec, Mat or Acc tiles");
  static_assert(store_legal<TileT, GT>(),
                "TSTORE: from Vec / Mat the element sizes must be equal; from Acc a float / int32 tile into "
                "int32 / float / half / bfloat16");
  store_each<A>(dst, src, [](auto x) { return typename GT::DType(x); });
}
// pto-isa.md TSTORE `TSTORE(global, acc, preQuantScalar)`: from an Acc tile only, float into
// int8 / uint8 and int32 into int8 / uint8 / half (TStore.hpp's CheckAcc2gm with isQuant).
template <typename TileT, typename GT> constexpr bool quant_legal() {
  using S = typename TileT::DType;
  using D = typename GT::DType;
  constexpr bool b8 = std::is_same_v<D, int8_t> || std::is_same_v<D, uint8_t>;
  return TileT::Loc_ == TileType::Acc &&
         ((std::is_same_v<S, float> && b8) || (std::is_same_v<S, int32_t> && (b8 || std::is_same_v<D, half>)));
}
// One element of a quantising store, as pto-isa's CPU simulation computes it for a scalar
// `preQuantScalar` (read from its cpu/TStore.hpp and cpu/common.hpp; the rule is written out in
// pto_ir::sem::store): the low 32 bits are an fp32 scale and bit 46 asks for a signed 8-bit
// range. The element goes to float, is multiplied by the scale in float, then rounded to
// nearest even and saturated (8-bit targets; a NaN gives 0, which the simulation leaves to
// an undefined cast) or saturated to +-65504 and rounded to nearest even (half).
template <typename D, typename S> D quantize(S x, uint64_t scalar) {
  const float y = float(x) * float_of(uint32_t(scalar & 0xffffffffu));
  if constexpr (std::is_same_v<D, half>) {
    return D(std::fmin(std::fmax(y, -65504.0f), 65504.0f));
  } else {
    if (std::isnan(y)) return D(0);
    const bool sign = (scalar >> 46) & 1u;
    const float r = std::nearbyint(y);
    return D(int(std::fmin(std::fmax(r, sign ? -128.0f : 0.0f), sign ? 127.0f : 255.0f)));
  }
}
template <AtomicType A, typename GT, typename TileT> void store_quant(GT& dst, TileT& src, uint64_t scalar) {
  static_assert(quant_legal<TileT, GT>(),
                "TSTORE with a quantisation scalar: from an Acc tile, float into int8 / uint8 or int32 into int8 / "
                "uint8 / half");
  store_each<A>(dst, src, [&](auto x) { return quantize<typename GT::DType>(x, scalar); });
}
}  // namespace model

template <typename GT, typename TileT, typename... E> RecordEvent TSTORE(GT& dst, TileT& src, E&...) {
  PTO_EVENTS(E);
  model::store<AtomicType::AtomicNone>(dst, src);
  return {};
}
// The atomic form names its types first, as pto-isa's does: `TSTORE<Tile, Global, AtomicAdd>`.
template <typename TileT, typename GT, AtomicType A, typename... E> RecordEvent TSTORE(GT& dst, TileT& src, E&...) {
  PTO_EVENTS(E);
  model::store<A>(dst, src);
  return {};
}
// The quantising forms take the `preQuantScalar` after the tile (pto-isa.md TSTORE).
template <typename GT, typename TileT, typename... E>
RecordEvent TSTORE(GT& dst, TileT& src, uint64_t preQuantScalar, E&...) {
  PTO_EVENTS(E);
  model::store_quant<AtomicType::AtomicNone>(dst, src, preQuantScalar);
  return {};
}
template <typename TileT, typename GT, AtomicType A, typename... E>
RecordEvent TSTORE(GT& dst, TileT& src, uint64_t preQuantScalar, E&...) {
  PTO_EVENTS(E);
  model::store_quant<A>(dst, src, preQuantScalar);
  return {};
}

}  // namespace pto

// Raw synchronisation as ptoas prints it (pto-isa.md 6.9); the model runs in order, so these
// do nothing.
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
inline void set_flag(pipe_t, pipe_t, event_t) {}
inline void wait_flag(pipe_t, pipe_t, event_t) {}
inline void pipe_barrier(pipe_t) {}

// The AI core's stop instruction, which pto-isa's failed checks (debug.h DEBUG_CHECK) call:
// the launch fails. The model ends the run with a message.
[[noreturn]] inline void trap() {
  std::fprintf(stderr, "pto model: trap: the kernel stopped\n");
  std::abort();
}

// SPMD identity (pto-isa.md: get_block_idx / get_block_num; the CPU stub keeps the block
// per thread). The model runs the blocks of a launch one after another: the driver sets the
// block and the block count before each call of the kernel.
inline int64_t& pto_model_block_idx() { static int64_t b = 0; return b; }
inline int64_t& pto_model_block_num() { static int64_t n = 1; return n; }
inline int64_t get_block_idx() { return pto_model_block_idx(); }
inline int64_t get_block_num() { return pto_model_block_num(); }

// Cross-core synchronisation between the cube core (AIC) and the vector cores (AIV) of an
// A2A3 cluster (shared/spec/pto-programs.md section A, from pto-isa's
// docs/isa/scalar/ops/pipeline-sync/set-cross-core.md and wait-flag-dev.md and the A2A3
// TPUSH / TPOP code, which is built on these):
// - a cluster is one AIC and two AIVs, which run separate programs; each AIV knows its
//   subblock (`get_subblockid()`, 0 or 1);
// - `ffts_cross_core_sync(pipe, cfg)` signals flag `(cfg >> 8) & 15` once the work issued
//   before it on `pipe` is done; `cfg = 1 | mode << 4 | flag << 8`, mode 2 being the
//   cube / vector mode, in which a signal of the AIC reaches both AIVs;
// - `wait_flag_dev(flag)` blocks the core until the flag was signalled to it, and consumes
//   the signal; in mode 2 the AIC's wait ends only once both AIVs signalled. There are 16
//   flags, and they count;
// - the FFTS base address is set first (`set_ffts_base_addr`, the host passes it).
// pto-isa's CPU simulation has no such calls (its TPUSH / TPOP have their own CPU code). The
// model runs each core as a thread (the driver calls `pto_model_enter`), counts the signals
// per receiving core, stops a wait that nothing will end (no signal for 20 s: a deadlock),
// and lets the driver check that every signal was consumed (`pto_model_cores_idle`).
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace pto { namespace model {
struct Cores {
  std::mutex m;
  std::condition_variable cv;
  int64_t to_cube[2][16] = {};  // signals of each AIV to the AIC
  int64_t to_vec[2][16] = {};   // signals of the AIC to each AIV
};
inline Cores& cores() {
  static Cores c;
  return c;
}
}}  // namespace pto::model

// The driver's: the calling thread is the AIC (`kind` 0) or AIV `sub` (`kind` 1).
inline void pto_model_enter(int kind, int sub) {
  pto::model::core_kind = kind;
  pto::model::core_sub = sub;
}
inline int64_t get_subblockid() { return pto::model::core_sub; }
inline void set_ffts_base_addr(uint64_t) {}

inline void ffts_cross_core_sync(pipe_t, uint64_t cfg) {
  using namespace pto::model;
  if ((cfg & 0xf) != 1) fail("ffts_cross_core_sync: the configuration's low bits must be 1");
  if (((cfg >> 4) & 3) != 2) fail("ffts_cross_core_sync: the model has mode 2 (cube / vector) only");
  const int flag = int((cfg >> 8) & 15);
  auto& c = cores();
  {
    std::lock_guard<std::mutex> g(c.m);
    if (core_kind == 0) {
      c.to_vec[0][flag]++;
      c.to_vec[1][flag]++;
    } else if (core_kind == 1) {
      c.to_cube[core_sub][flag]++;
    } else {
      fail("ffts_cross_core_sync: not on a core of a split kernel");
    }
  }
  c.cv.notify_all();
}

inline void wait_flag_dev(int64_t flag) {
  using namespace pto::model;
  if (flag < 0 || flag > 15) fail("wait_flag_dev: flags are 0..15");
  auto& c = cores();
  std::unique_lock<std::mutex> g(c.m);
  const bool ok = c.cv.wait_for(g, std::chrono::seconds(20), [&] {
    if (core_kind == 0) return c.to_cube[0][flag] > 0 && c.to_cube[1][flag] > 0;
    return c.to_vec[core_sub][flag] > 0;
  });
  if (core_kind != 0 && core_kind != 1) fail("wait_flag_dev: not on a core of a split kernel");
  if (!ok) fail("wait_flag_dev: no signal came (deadlock)");
  if (core_kind == 0) {
    c.to_cube[0][flag]--;
    c.to_cube[1][flag]--;
  } else {
    c.to_vec[core_sub][flag]--;
  }
}

// Whether every cross-core signal was consumed (checked after a launch).
inline bool pto_model_cores_idle() {
  auto& c = pto::model::cores();
  std::lock_guard<std::mutex> g(c.m);
  for (int s = 0; s < 2; ++s)
    for (int f = 0; f < 16; ++f)
      if (c.to_cube[s][f] != 0 || c.to_vec[s][f] != 0) return false;
  return true;
}

// The scalar unit's data cache (pto-isa's A2A3 intrinsics; its CPU stub has them as no-ops):
// a value written to GM through a plain pointer reaches GM, and another core's read sees it,
// only after `dcci` on its cache line; `dsb(DSB_DDR)` orders that before what follows. The
// model has no cache.
struct cache_line_t {
  static constexpr int SINGLE_CACHE_LINE = 0;
  static constexpr int ENTIRE_DATA_CACHE = 1;
};
using mem_dsb_t = int;
inline constexpr mem_dsb_t DSB_DDR = 0;
inline void dcci(const volatile void*, int) {}
inline void dsb(mem_dsb_t) {}
