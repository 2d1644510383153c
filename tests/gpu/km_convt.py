# km_convt.py: a PyTorch transposed convolution for --kernel-metrics: one warm-up forward pass,
# then the measured one (the script's caller picks kernels with --kernel-skip/--kernel-count).
# `km_convt.py [BATCH]` (default 16; at 64 each kernel moves several times the H200's L2).
import sys
import torch
torch.backends.cudnn.benchmark = False
conv = torch.nn.ConvTranspose2d(64, 32, kernel_size=4, stride=2, padding=1).cuda()
x = torch.randn(int(sys.argv[1]) if len(sys.argv) > 1 else 16, 64, 64, 64, device="cuda")
with torch.no_grad():
    for _ in range(2):
        y = conv(x)
torch.cuda.synchronize()
print("km_convt:", tuple(y.shape))
