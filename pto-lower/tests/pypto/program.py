# pypto.program: control
import pypto.language as pl
# attr note = "a \"quoted\" note"


@pl.program
class control:
    @pl.function(type=pl.FunctionType.InCore)  # func.kind = kernel
    def accumulate(self, x_1: pl.Tensor[[B_2, 32], pl.FP32], n_3: pl.Scalar[pl.INT64], out_4: pl.Out[pl.Tensor[[B_2, 32], pl.FP32]]) -> tuple[pl.Scalar[pl.FP32], pl.Scalar[pl.INT64]]:
        B_2 = x_1.shape[0]
        acc0_9: pl.Tile[[16, 32], pl.FP32] = pl.full(0.0, shape=[16, 32], dtype=pl.FP32)
        for i_12, (acc_13, t_14) in pl.range(0, n_3, 16, init_values=(acc0_9, 0.0)):
            x_15: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 32])] = pl.load(x_1, [i_12, 0], [16, 32])
            sum_16: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 32])] = pl.add(acc_13, x_15)
            full_17: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[16, 16])] = pl.valid(sum_16, 16, 16)
            t2_18: pl.Scalar[pl.FP32] = t_14 + 0.0
            big_19: pl.Scalar[pl.BOOL] = t2_18 > 0.0
            if big_19:
                dbl_22: pl.Tile[[16, 32], pl.FP32] = pl.mul(acc_13, 2.0)
                picked_20: pl.Tile[[16, 32], pl.FP32] = pl.yield_(dbl_22)
            else:
                picked_20: pl.Tile[[16, 32], pl.FP32] = pl.yield_(acc_13)
            acc_10, total_11 = pl.yield_(picked_20, t2_18)
        for r_23 in pl.parallel(0, n_3, 16):
            for c_24 in pl.range(0, 16, 1):
                pl.store(acc_10, [r_23, 0], out_4)
        for k_25 in pl.parallel(0, 16, 1, unroll=4, mode="fast"):
            pass
        for u_26 in pl.range(0, 16, 1, unroll=2):
            pass
        for (j_28,) in pl.while_(init_values=(0,)):
            lt_29: pl.Scalar[pl.BOOL] = j_28 < n_3
            pl.cond(lt_29)
            j2_30: pl.Scalar[pl.INT64] = j_28 + 1
            stop_31: pl.Scalar[pl.BOOL] = j2_30 == 16
            skip_32: pl.Scalar[pl.BOOL] = j2_30 == 1
            if stop_31:
                count_27: pl.Scalar[pl.INT64] = pl.yield_(j2_30)
                break
            else:
                pass
            if skip_32:
                j_28 = j2_30
                continue
            else:
                pass
            count_27: pl.Scalar[pl.INT64] = pl.yield_(j2_30)
        big_47: pl.Scalar[pl.BOOL] = total_11 > 0.0
        q_49: pl.Scalar[pl.FP32] = min(total_11, float("inf"))
        d_51: pl.Scalar[pl.INT64] = pl.scalar.div(-7, n_3)
        f_52: pl.Scalar[pl.INT64] = (-7) // n_3
        nb_53: pl.Scalar[pl.BOOL] = not big_47
        bn_54: pl.Scalar[pl.INT64] = ~f_52
        cv_55: pl.Scalar[pl.FP32] = pl.cast(bn_54, pl.FP32)
        if big_47:
            w_34: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 32])] = pl.load(x_1, [count_27, 0], [16, 32])
            merged_33: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 32])] = pl.yield_(w_34)
        else:
            merged_33: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 32])] = pl.yield_(acc_10)
        if nb_53:
            forced_35: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, pl.DYNAMIC])] = pl.yield_(acc_10)
        else:
            forced_35: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, pl.DYNAMIC])] = pl.yield_(acc_10)
        with pl.incore():
            inner_36: pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, pl.DYNAMIC])] = pl.add(merged_33, forced_35)
            pl.store(inner_36, [0, 0], out_4)
        s_37: pl.Tile[[16, 1], pl.FP32] = pl.row_sum(acc_10)
        return total_11, count_27

    @pl.function(type=pl.FunctionType.InCore)  # func.kind = kernel
    def helper(self, v_38: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
        sq_39: pl.Scalar[pl.FP32] = v_38 * v_38
        return sq_39

    # entry
    @pl.function(type=pl.FunctionType.Orchestration)  # func.kind = control_flow
    def main(self, x_40: pl.Tensor[[B_41, 32], pl.FP32], n_42: pl.Scalar[pl.INT64], out_43: pl.Out[pl.Tensor[[B_41, 32], pl.FP32]]) -> pl.Scalar[pl.FP32]:
        B_41 = x_40.shape[0]
        a_44, b_45 = self.accumulate(x_40, n_42, out_43)
        h_46: pl.Scalar[pl.FP32] = self.helper(a_44)  # inline=True
        self.noop()
        return h_46

    @pl.function(type=pl.FunctionType.Opaque)  # func.kind = data_flow
    def noop(self):
        return
