//! The shape check a kernel's host function runs before anything else: [`bind_shapes`].
//!
//! A kernel's tensor parameters are written as one signature string, `"x[B, 128] out[B, 128]"`:
//! per parameter its name and, in brackets, one entry per dimension, each a size (`128`), a
//! symbolic dimension (`B`) or `?` (any size). One call checks every runtime shape against it
//! and returns the sizes the symbolic dimensions take.

use crate::Error;
use crate::tensor::MAX_RANK;

/// One dimension of a signature.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Size {
    /// A static size.
    Fixed(usize),
    /// Any size (`?`).
    Any,
    /// A symbolic dimension: the same size wherever the name appears.
    Symbol(&'static str),
}

/// A parameter of a signature.
#[derive(Clone, Copy)]
struct Param {
    name: &'static str,
    rank: usize,
    /// The first `rank` are its dimensions.
    dims: [Size; MAX_RANK],
}

/// A dimension of a signature and where it is.
#[derive(Clone, Copy)]
struct Occurrence {
    /// The parameter's index.
    param: usize,
    /// The parameter's name.
    name: &'static str,
    /// The dimension's index in the parameter.
    dim: usize,
    size: Size,
}

/// Checks the shapes of a kernel's tensor arguments against the kernel's `signature` and
/// returns the sizes of its symbolic dimensions, in order of first appearance.
///
/// `signature` lists the tensor parameters in order, separated by whitespace, each as
/// `name[d0, d1, ..]` with 1 to 4 dimensions: a size (`128`), the name of a symbolic
/// dimension (`B`) or `?` (any size). `shapes` holds the actual shapes, in the same order.
/// The checks run in this order, and the first that fails is the error:
/// 1. per parameter, in order: its rank ([`Error::Rank`]), then each static size in order
///    ([`Error::Shape`]);
/// 2. per symbolic dimension, in order of first appearance: it takes the size of its first
///    occurrence, and every later occurrence must have that size
///    ([`Error::SymbolMismatch`]).
///
/// The sizes are returned as `i64`, the type of a symbolic dimension in a kernel (a size
/// beyond `i64::MAX` wraps, as an `as` cast does). A signature that does not read, or that
/// names another number of parameters than `P` or of symbolic dimensions than `N`, is an
/// [`Error::Signature`], reported before any shape is looked at. Never panics.
///
/// The host function of a `#[pto::kernel]` starts with this call.
///
/// ```
/// use pto::Tensor;
///
/// # fn main() -> Result<(), pto::Error> {
/// let x = Tensor::<f32>::zeros([4, 128]);
/// let out = Tensor::<f32>::zeros([4, 128]);
/// let [b] = pto::bind_shapes("x[B, 128] out[B, 128]", [x.shape(), out.shape()])?;
/// assert_eq!(b, 4);
///
/// let wrong = Tensor::<f32>::zeros([5, 128]);
/// assert_eq!(
///     pto::bind_shapes::<2, 1>("x[B, 128] out[B, 128]", [x.shape(), wrong.shape()]),
///     Err(pto::Error::SymbolMismatch { symbol: "B", param: "out", dim: 0, expected: 4, actual: 5 })
/// );
/// # Ok(())
/// # }
/// ```
pub fn bind_shapes<const P: usize, const N: usize>(
    signature: &'static str,
    shapes: [&[usize]; P],
) -> Result<[i64; N], Error> {
    let sig = parse::<P>(signature)?;
    let symbols = occurrences(&sig)
        .enumerate()
        .filter(|&(i, o)| first(&sig, i, o.size))
        .count();
    if symbols != N {
        return Err(Error::Signature {
            signature,
            reason: "it names another number of symbolic dimensions than the call binds",
        });
    }
    // 1. Ranks and static sizes, parameter by parameter.
    for (p, shape) in sig.iter().zip(shapes) {
        if p.rank != shape.len() {
            return Err(Error::Rank {
                param: p.name,
                expected: p.rank,
                actual: shape.len(),
            });
        }
        for (dim, (&want, &actual)) in p.dims.iter().zip(shape).enumerate() {
            if let Size::Fixed(expected) = want
                && expected != actual
            {
                return Err(Error::Shape {
                    param: p.name,
                    dim,
                    expected,
                    actual,
                });
            }
        }
    }
    // 2. Symbolic dimensions, each bound from its first occurrence and checked against the
    // later ones. Every dimension is within its shape now (the ranks agree).
    let size_at = |p: usize, d: usize| shapes.get(p).and_then(|s| s.get(d)).copied();
    let mut out = [0; N];
    let mut slots = out.iter_mut();
    for (i, o) in occurrences(&sig).enumerate() {
        let Size::Symbol(symbol) = o.size else {
            continue;
        };
        if !first(&sig, i, o.size) {
            continue;
        }
        let expected = size_at(o.param, o.dim).unwrap_or_default();
        for later in occurrences(&sig).skip(i + 1).filter(|l| l.size == o.size) {
            let actual = size_at(later.param, later.dim).unwrap_or_default();
            if actual != expected {
                return Err(Error::SymbolMismatch {
                    symbol,
                    param: later.name,
                    dim: later.dim,
                    expected,
                    actual,
                });
            }
        }
        if let Some(slot) = slots.next() {
            *slot = expected as i64;
        }
    }
    Ok(out)
}

/// Reads `signature`, which must have `P` parameters.
fn parse<const P: usize>(signature: &'static str) -> Result<[Param; P], Error> {
    let malformed = |reason| Error::Signature { signature, reason };
    let mut sig = [Param {
        name: "",
        rank: 0,
        dims: [Size::Any; MAX_RANK],
    }; P];
    let mut params = sig.iter_mut();
    let mut rest = signature.trim_start();
    while !rest.is_empty() {
        let (name, tail) = rest
            .split_once('[')
            .ok_or(malformed("a parameter has no `[`"))?;
        let (dims, tail) = tail
            .split_once(']')
            .ok_or(malformed("a parameter has no `]`"))?;
        if name.contains(|c: char| c.is_whitespace() || c == ',' || c == ']') {
            return Err(malformed("a parameter name has a space, `,` or `]`"));
        }
        let param = params
            .next()
            .ok_or(malformed("it has more parameters than there are shapes"))?;
        param.name = name;
        for dim in dims.split(',') {
            let slot = param
                .dims
                .get_mut(param.rank)
                .ok_or(malformed("a parameter has more than 4 dimensions"))?;
            *slot = size(dim.trim()).ok_or(malformed("a dimension does not read"))?;
            param.rank += 1;
        }
        rest = tail.trim_start();
    }
    if params.next().is_some() {
        return Err(malformed("it has fewer parameters than there are shapes"));
    }
    Ok(sig)
}

/// A dimension of a signature: digits are a size, `?` any size, another word a symbol.
fn size(text: &'static str) -> Option<Size> {
    match text.bytes().next()? {
        b'0'..=b'9' => {
            // A size the target's `usize` cannot hold is `usize::MAX`, which no real shape has.
            let n: u64 = text.parse().ok()?;
            Some(Size::Fixed(usize::try_from(n).unwrap_or(usize::MAX)))
        }
        _ if text == "?" => Some(Size::Any),
        _ if text.contains(|c: char| c.is_whitespace() || c == '[') => None,
        _ => Some(Size::Symbol(text)),
    }
}

/// Every dimension of a read signature, in order.
fn occurrences(sig: &[Param]) -> impl Iterator<Item = Occurrence> + '_ {
    sig.iter().enumerate().flat_map(|(param, p)| {
        p.dims
            .iter()
            .take(p.rank)
            .enumerate()
            .map(move |(dim, &size)| Occurrence {
                param,
                name: p.name,
                dim,
                size,
            })
    })
}

/// Whether occurrence `i` of `sig` is the first of a symbolic dimension `size`.
fn first(sig: &[Param], i: usize, size: Size) -> bool {
    matches!(size, Size::Symbol(_)) && !occurrences(sig).take(i).any(|o| o.size == size)
}

/// An offset computed at run time as an index: the host code calls this where the kernel
/// gives a scalar as a load / store offset, so a negative one is an error that says so (an
/// `as usize` would make it a huge number that is merely out of bounds).
#[doc(hidden)]
#[inline]
pub fn offset<T: Copy + TryInto<usize> + Into<i128>>(v: T) -> Result<usize, Error> {
    v.try_into()
        .map_err(|_| Error::NegativeOffset { value: v.into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIG: &str = "x[R, 256] a[M, K] b[K, N] bias[1, N]";

    fn shapes<'a>(
        x: &'a [usize],
        a: &'a [usize],
        b: &'a [usize],
        bias: &'a [usize],
    ) -> [&'a [usize]; 4] {
        [x, a, b, bias]
    }

    #[test]
    fn binds_symbols_in_order_of_first_appearance() {
        let s = shapes(&[4, 256], &[32, 64], &[64, 16], &[1, 16]);
        assert_eq!(bind_shapes(SIG, s), Ok([4, 32, 64, 16]));
        // `?` takes any size; a symbol may repeat within one tensor.
        assert_eq!(bind_shapes("x[?, N, N]", [&[7, 3, 3][..]]), Ok([3]));
        assert_eq!(bind_shapes(" x[2]\ty[ 3 ] ", [&[2][..], &[3]]), Ok([]));
    }

    #[test]
    fn static_size_mismatch() {
        let s = shapes(&[4, 256], &[32, 64], &[64, 16], &[2, 16]);
        assert_eq!(
            bind_shapes::<4, 4>(SIG, s),
            Err(Error::Shape {
                param: "bias",
                dim: 0,
                expected: 1,
                actual: 2
            })
        );
    }

    #[test]
    fn rank_mismatch() {
        let s = shapes(&[4, 256], &[32, 64, 1], &[64, 16], &[1, 16]);
        assert_eq!(
            bind_shapes::<4, 4>(SIG, s),
            Err(Error::Rank {
                param: "a",
                expected: 2,
                actual: 3
            })
        );
    }

    #[test]
    fn symbol_mismatch_names_the_later_tensor() {
        let s = shapes(&[4, 256], &[32, 64], &[48, 16], &[1, 16]);
        assert_eq!(
            bind_shapes::<4, 4>(SIG, s),
            Err(Error::SymbolMismatch {
                symbol: "K",
                param: "b",
                dim: 0,
                expected: 64,
                actual: 48
            })
        );
    }

    /// All ranks and static sizes are checked before any symbol, and symbols one after
    /// another in order of first appearance.
    #[test]
    fn errors_come_in_order() {
        // `K` disagrees (a then b), and later `bias` has a wrong static size: the static
        // size is reported.
        let s = shapes(&[4, 256], &[32, 64], &[48, 16], &[2, 16]);
        assert!(matches!(
            bind_shapes::<4, 4>(SIG, s),
            Err(Error::Shape { param: "bias", .. })
        ));
        // `M` (first seen before `K`) and `K` both disagree: `M` is reported although its
        // other occurrence is in a later parameter than `K`'s.
        let s = bind_shapes::<3, 2>("a[M, K] b[K, 1] c[M, 1]", [&[2, 3], &[4, 1], &[5, 1]]);
        assert!(matches!(s, Err(Error::SymbolMismatch { symbol: "M", .. })));
    }

    /// The same result as `Tensor::check_shape` for every parameter, then `Tensor::bind_dim`
    /// per symbol over its occurrences, on every shape with sizes 1 and 2 and on rank errors.
    #[test]
    fn same_as_check_shape_then_bind_dim() {
        use crate::Tensor;
        let names = ["x", "a", "b", "bias"];
        let declared: [&[Option<usize>]; 4] = [
            &[None, Some(2)],
            &[None, None],
            &[None, None],
            &[Some(1), None],
        ];
        // Per symbol in order of first appearance, its (parameter, dimension) occurrences.
        let symbols: [(&str, &[(usize, usize)]); 4] = [
            ("R", &[(0, 0)]),
            ("M", &[(1, 0)]),
            ("K", &[(1, 1), (2, 0)]),
            ("N", &[(2, 1), (3, 1)]),
        ];
        let reference = |ts: &[Tensor<f32>; 4]| -> Result<[i64; 4], Error> {
            for ((t, name), want) in ts.iter().zip(names).zip(declared) {
                t.check_shape(name, want)?;
            }
            let mut out = [0; 4];
            for ((symbol, occurrences), o) in symbols.iter().zip(&mut out) {
                let mut slot = None;
                for &(p, d) in *occurrences {
                    ts[p].bind_dim(names[p], d, symbol, &mut slot)?;
                }
                *o = slot.unwrap_or(0) as i64;
            }
            Ok(out)
        };
        const SIG: &str = "x[R, 2] a[M, K] b[K, N] bias[1, N]";
        for bits in 0..1u32 << 8 {
            let size = |k: u32| 1 + (bits >> k & 1) as usize;
            let mut shapes = [
                vec![size(0), size(1)],
                vec![size(2), size(3)],
                vec![size(4), size(5)],
                vec![size(6), size(7)],
            ];
            // Now and then one parameter of rank 1 or 3.
            match bits % 7 {
                1 => drop(shapes[(bits % 4) as usize].pop()),
                2 => shapes[(bits % 4) as usize].push(1),
                _ => {}
            }
            let ts = shapes
                .clone()
                .map(|s| Tensor::<f32>::try_zeros(&s).unwrap());
            let got = bind_shapes(SIG, [&shapes[0][..], &shapes[1], &shapes[2], &shapes[3]]);
            assert_eq!(got, reference(&ts), "{shapes:?}");
        }
    }

    #[test]
    fn sizes_wrap_into_i64() {
        assert_eq!(
            bind_shapes("x[N, 0]", [&[usize::MAX, 0][..]]),
            Ok([usize::MAX as i64])
        );
        assert_eq!(
            bind_shapes::<1, 0>("x[18446744073709551615]", [&[3][..]]),
            Err(Error::Shape {
                param: "x",
                dim: 0,
                expected: usize::MAX,
                actual: 3
            })
        );
    }

    #[test]
    fn malformed_signatures_are_errors() {
        let one: [&[usize]; 1] = [&[2, 3]];
        for bad in [
            "",
            "x",
            "x[2, 3",
            "x 2, 3]",
            "x[2, 3] y[2]",
            "x[2,, 3]",
            "x[2, 3x]",
            "x[2, a b]",
            "a b[2, 3]",
            "x[1, 2, 3, 4, 5]",
            "x[2, 3]]",
            "x[-1, 3]",
        ] {
            assert!(
                matches!(bind_shapes::<1, 0>(bad, one), Err(Error::Signature { .. })),
                "{bad:?}"
            );
        }
        // The symbol count must match, before any shape is looked at.
        assert!(matches!(
            bind_shapes::<1, 1>("x[7, 7]", one),
            Err(Error::Signature { .. })
        ));
        assert!(matches!(
            bind_shapes::<1, 1>("x[N, M]", [&[2][..]]),
            Err(Error::Signature { .. })
        ));
    }
}
