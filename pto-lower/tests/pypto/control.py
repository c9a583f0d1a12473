# pypto.program: control
import pypto.language as pl


@pl.program
class control:
    # entry
    @pl.function(type=pl.FunctionType.InCore)  # func.kind = kernel
    def control(self, x_1: pl.Tensor[[16, 32], pl.FP32], out_2: pl.Out[pl.Tensor[[16, 32], pl.FP32]], n_3: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        t_7: pl.Tile[[16, 32], pl.FP32] = pl.load(x_1, [0, 0], [16, 32])
        for i_10, (a_11, k_12) in pl.range(0, n_3, 1, init_values=(t_7, 0)):
            odd_13: pl.Scalar[pl.INT64] = pl.scalar.rem(i_10, 5)
            z_14: pl.Scalar[pl.BOOL] = odd_13 == 0
            if z_14:
                e_16: pl.Tile[[16, 32], pl.FP32] = pl.exp(a_11)
                f_18: pl.Tile[[16, 32], pl.FP32] = pl.mul(e_16, 0.5)
                m_15: pl.Tile[[16, 32], pl.FP32] = pl.yield_(f_18)
            else:
                m_15: pl.Tile[[16, 32], pl.FP32] = pl.yield_(a_11)
            k2_19: pl.Scalar[pl.INT64] = k_12 + 1
            acc_8, cnt_9 = pl.yield_(m_15, k2_19)
        for (j_21,) in pl.while_(init_values=(0,)):
            go_22: pl.Scalar[pl.BOOL] = j_21 < n_3
            pl.cond(go_22)
            j2_23: pl.Scalar[pl.INT64] = j_21 + 1
            stop_24: pl.Scalar[pl.BOOL] = j2_23 == 5
            if stop_24:
                w_20: pl.Scalar[pl.INT64] = pl.yield_(j2_23)
                break
            else:
                pass
            w_20: pl.Scalar[pl.INT64] = pl.yield_(j2_23)
        pl.store(acc_8, [0, 0], out_2)
        r_25: pl.Scalar[pl.INT64] = cnt_9 + w_20
        return r_25
