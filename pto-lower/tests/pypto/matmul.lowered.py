# pypto.program: matmul
import pypto.language as pl


@pl.program
class matmul:
    # entry
    @pl.function(type=pl.FunctionType.InCore)  # func.kind = kernel
    def matmul(self, a_1: pl.Tensor[[32, 32], pl.FP32], b_2: pl.Tensor[[32, 32], pl.FP32], c_3: pl.Out[pl.Tensor[[32, 32], pl.FP32]], r_4: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        at_5: pl.Tile[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.Mat, 0, 4096)] = pl.load(a_1, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        bt_6: pl.Tile[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.Mat, 4096, 4096)] = pl.load(b_2, [0, 0], [32, 32])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        at_left_9: pl.Tile[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.Left, 0, 4096)] = pl.tile.move(at_5, loc=pl.MemorySpace.Left)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=1)
        bt_right_10: pl.Tile[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.Right, 0, 4096)] = pl.tile.move(bt_6, loc=pl.MemorySpace.Right)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
        ct_7: pl.Tile[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.Acc, 0, 4096)] = pl.matmul(at_left_9, bt_right_10)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.store(ct_7, [0, 0], c_3)
        ct_vec_11: pl.Tile[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0, 4096)] = pl.tile.move(ct_7, loc=pl.MemorySpace.Vec)
        pl.system.sync_src(set_pipe=pl.PipeType.FIX, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.FIX, wait_pipe=pl.PipeType.V, event_id=0)
        rt_8: pl.Tile[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0, 4096)] = pl.relu(ct_vec_11)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(rt_8, [0, 0], r_4)
        return
