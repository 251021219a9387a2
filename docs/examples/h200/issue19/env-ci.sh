# this machine's CUDA environment: eval "$(cudacheck env --profile ci)"
# toolkit: /usr/local/cuda 13.0.88 (1 installed)
export CUDA_HOME='/usr/local/cuda'
export PATH='/usr/local/cuda/bin'"${PATH:+:$PATH}"
# LD_LIBRARY_PATH: unchanged, the loader finds this toolkit's libcudart.so.13 already (/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13, by ld.so.cache)
# host compiler: /usr/bin/gcc (gcc 13.3.0, nvcc's default (gcc on PATH)) accepted by /usr/local/cuda/include/crt/host_config.h
# the visible GPUs: compute capability 9.0
export TORCH_CUDA_ARCH_LIST='9.0'
export CUDAARCHS='90'
export NVCC_GENCODE='-gencode=arch=compute_90,code=sm_90'
# profile ci: reproducible results on one GPU
export CUBLAS_WORKSPACE_CONFIG=':4096:8'
export PYTHONHASHSEED='0'
# one GPU: device 0, the only one visible
export CUDA_VISIBLE_DEVICES='0'
