/*
 * nvtx_names: one push/pop range per argument, named by it, in order, on the main thread.
 *
 * Usage: nvtx_names NAME...
 *
 * For checks of how range names are read (PyTorch's "aten::mm, seq = 1, op_id = 2" among
 * them). Prints nothing; exits 0.
 */
#include <nvtx3/nvToolsExt.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        nvtxRangePushA(argv[i]);
        nvtxRangePop();
    }
    return 0;
}
