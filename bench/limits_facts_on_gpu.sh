set +e
P=/opt/torch/.venv/bin/python
ls -la /usr/local/cuda/lib64/stubs/ /usr/local/cuda/targets/x86_64-linux/lib/stubs/ 2>&1 | head -40
S=$(ls /usr/local/cuda/lib64/stubs/libnvidia-ml.so* 2>/dev/null | head -1); echo "stub=$S"
[ -n "$S" ] && { readelf -d $S | grep -i soname; strings $S | grep -i -n "stub\|warning\|driver" | head -20; }
[ -n "$S" ] && $P -c "
import ctypes;l=ctypes.CDLL('$S');r=l.nvmlInit_v2();l.nvmlErrorString.restype=ctypes.c_char_p;print('init',r,repr(l.nvmlErrorString(r)))"
ldconfig -p | grep -i nvidia-ml
cat > /tmp/ci.py <<'P'
import ctypes,sys
l=ctypes.CDLL('libcuda.so.1');print(sys.argv[1],'cuInit',l.cuInit(0))
P
for v in 1000000 4000000 8000000 16000000 32000000 64000000 128000000 256000000 512000000 1000000000; do (ulimit -v $v; $P /tmp/ci.py $v 2>&1 | tail -1); done
for v in 1000000 4000000 16000000 64000000 256000000; do (ulimit -d $v; $P /tmp/ci.py data$v 2>&1 | tail -1); done
(ulimit -l 0; $P -c "
import torch;t=torch.empty(1<<28,dtype=torch.uint8,pin_memory=True);print('pinned 256MiB under ulimit -l 0 ok',t.is_pinned())" 2>&1 | tail -2)
(ulimit -l 0; $P -c "
import torch;a=torch.empty(1<<26,dtype=torch.uint8);r=torch.cuda.cudart().cudaHostRegister(a.data_ptr(),a.numel(),0);print('hostregister under -l 0',r)" 2>&1|tail -2)
ulimit -a
cat /sys/fs/cgroup/memory.max 2>&1; cat /proc/self/cgroup
