build_info = collections.OrderedDict([('is_cuda_build', True), ('cuda_version', '12.3'), ('cudnn_version', '8'), ('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'compute_90'])])
