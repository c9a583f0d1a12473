// Minimal declarations of the PTO-ISA C++ surface the pto-lower C++ emitter uses, written for
// pto-lower's syntax tests from the public description of the interface
// (shared/spec/pto-isa.md section 5). Declarations only: `g++ -fsyntax-only` checks that the
// emitted kernels name, template and call these as intended. Not the PTO-ISA library.
#pragma once
#include <cstdint>

#define __global__
#define AICORE
#define __gm__

namespace pto {

constexpr int DYNAMIC = -1;

enum class TileType { Vec, Mat, Left, Right, Acc, Bias, Scaling };
enum class BLayout { RowMajor, ColMajor };
enum class SLayout { NoneBox, RowMajor, ColMajor };
enum class PadValue { Null, Zero, Max, Min };
enum class RoundMode { CAST_NONE, CAST_RINT, CAST_ROUND, CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD };
enum class Layout { ND, DN, NZ };

struct half {
  half() = default;
  explicit half(float) {}
};
struct bfloat16_t {
  bfloat16_t() = default;
  explicit bfloat16_t(float) {}
};

template <TileType Loc, typename T, int Rows, int Cols, BLayout B = BLayout::RowMajor, int ValidRow = Rows,
          int ValidCol = Cols, SLayout S = SLayout::NoneBox, int SFractalSize = 512, PadValue Pad = PadValue::Null>
struct Tile {
  static_assert(Rows > 0 && Cols > 0, "tile extents are positive");
  static_assert(ValidRow <= Rows && ValidCol <= Cols, "valid region inside the tile");
  static_assert(SFractalSize == 512 || SFractalSize == 1024 || SFractalSize == 32, "fractal size");
  using DType = T;
  static constexpr TileType Loc_ = Loc;
  Tile() = default;
  Tile(int64_t valid_rows, int64_t valid_cols);
  int64_t GetValidRow() const;
  int64_t GetValidCol() const;
  void SetValidShape(int64_t rows, int64_t cols);
};

template <int64_t... N> struct Shape {};
template <int64_t... N> struct Stride {};

template <typename T, typename S, typename St, Layout L = Layout::ND>
struct GlobalTensor {
  using DType = T;
  explicit GlobalTensor(T* ptr);
  GlobalTensor(T* ptr, int64_t row_pitch);
};

struct RecordEvent {};

template <typename TileT> void TASSIGN(TileT& tile, uint64_t byte_offset);

template <typename TileT, typename GT> RecordEvent TLOAD(TileT& dst, GT& src);
template <typename GT, typename TileT> RecordEvent TSTORE(GT& dst, TileT& src);

#define PTO_BINARY(NAME) template <typename D, typename A, typename B> RecordEvent NAME(D& dst, A& a, B& b);
PTO_BINARY(TADD) PTO_BINARY(TSUB) PTO_BINARY(TMUL) PTO_BINARY(TDIV) PTO_BINARY(TMAX) PTO_BINARY(TMIN)
PTO_BINARY(TREM) PTO_BINARY(TFMOD) PTO_BINARY(TAND) PTO_BINARY(TOR) PTO_BINARY(TXOR) PTO_BINARY(TSHL) PTO_BINARY(TSHR)
PTO_BINARY(TROWEXPANDADD) PTO_BINARY(TROWEXPANDSUB) PTO_BINARY(TROWEXPANDMUL) PTO_BINARY(TROWEXPANDDIV)
PTO_BINARY(TROWEXPANDMAX) PTO_BINARY(TROWEXPANDMIN) PTO_BINARY(TCOLEXPANDADD) PTO_BINARY(TCOLEXPANDSUB)
PTO_BINARY(TCOLEXPANDMUL) PTO_BINARY(TCOLEXPANDDIV) PTO_BINARY(TCOLEXPANDMAX) PTO_BINARY(TCOLEXPANDMIN)
PTO_BINARY(TMATMUL)
#undef PTO_BINARY

#define PTO_SCALAR(NAME) \
  template <typename D, typename S> RecordEvent NAME(D& dst, S& src, typename S::DType k);
PTO_SCALAR(TADDS) PTO_SCALAR(TSUBS) PTO_SCALAR(TMULS) PTO_SCALAR(TMAXS) PTO_SCALAR(TMINS) PTO_SCALAR(TREMS) PTO_SCALAR(TFMODS)
PTO_SCALAR(TANDS) PTO_SCALAR(TORS) PTO_SCALAR(TXORS) PTO_SCALAR(TSHLS) PTO_SCALAR(TSHRS)
#undef PTO_SCALAR
// TDIVS: `d = s / k` or, scalar first, `d = k / s`.
template <typename D, typename S> RecordEvent TDIVS(D& dst, S& src, typename S::DType k);
template <typename D, typename S> RecordEvent TDIVS(D& dst, typename S::DType k, S& src);

#define PTO_UNARY(NAME) template <typename D, typename S> RecordEvent NAME(D& dst, S& src);
PTO_UNARY(TNEG) PTO_UNARY(TABS) PTO_UNARY(TRELU) PTO_UNARY(TEXP) PTO_UNARY(TLOG) PTO_UNARY(TSQRT)
PTO_UNARY(TRSQRT) PTO_UNARY(TRECIP) PTO_UNARY(TNOT) PTO_UNARY(TMOV) PTO_UNARY(TROWEXPAND) PTO_UNARY(TCOLEXPAND)
PTO_UNARY(TCOLSUM) PTO_UNARY(TCOLMAX) PTO_UNARY(TCOLMIN)
#undef PTO_UNARY

#define PTO_WITH_TMP(NAME) template <typename D, typename S, typename Tmp> RecordEvent NAME(D& dst, S& src, Tmp& tmp);
PTO_WITH_TMP(TROWSUM) PTO_WITH_TMP(TROWMAX) PTO_WITH_TMP(TROWMIN) PTO_WITH_TMP(TTRANS)
PTO_WITH_TMP(TCOLSUM) PTO_WITH_TMP(TCOLMAX) PTO_WITH_TMP(TCOLMIN)
#undef PTO_WITH_TMP

template <typename C, typename CIn, typename A, typename B> RecordEvent TMATMUL_ACC(C& c, CIn& c_in, A& a, B& b);
template <typename C, typename A, typename B, typename Bias> RecordEvent TMATMUL_BIAS(C& c, A& a, B& b, Bias& bias);
template <typename D> RecordEvent TEXPANDS(D& dst, typename D::DType k);
template <typename D, typename S> RecordEvent TCVT(D& dst, S& src, RoundMode mode);
template <typename D, typename S> RecordEvent TEXTRACT(D& dst, S& src, uint16_t row, uint16_t col);
template <typename D, typename S> RecordEvent TINSERT(D& dst, S& src, uint16_t row, uint16_t col);

}  // namespace pto

enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
void set_flag(pipe_t src, pipe_t dst, event_t id);
void wait_flag(pipe_t src, pipe_t dst, event_t id);
void pipe_barrier(pipe_t pipe);
