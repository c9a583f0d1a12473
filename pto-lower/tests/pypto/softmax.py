# pypto.program: softmax
import pypto.language as pl


@pl.program
class softmax:
    # entry
    @pl.function(type=pl.FunctionType.InCore)  # func.kind = kernel
    def softmax(self, x_2: pl.Tensor[[R_1, 128], pl.FP32], out_3: pl.Out[pl.Tensor[[R_1, 128], pl.FP32]]):
        R_1 = x_2.shape[0]
        for r_6 in pl.range(0, R_1, 8):
            t_7: pl.Tile[[8, 128], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 128])] = pl.load(x_2, [r_6, 0], [8, 128])
            m_8: pl.Tile[[8, 1], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 1])] = pl.row_max(t_7)
            s_9: pl.Tile[[8, 128], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 128])] = pl.sub(t_7, m_8)
            e_10: pl.Tile[[8, 128], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 128])] = pl.exp(s_9)
            sum_11: pl.Tile[[8, 1], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 1])] = pl.row_sum(e_10)
            o_12: pl.Tile[[8, 128], pl.FP32, pl.TileView(valid_shape=[pl.DYNAMIC, 128])] = pl.div(e_10, sum_11)
            pl.store(o_12, [r_6, 0], out_3)
        return
