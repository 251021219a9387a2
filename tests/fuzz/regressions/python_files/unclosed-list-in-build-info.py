build_info = collections.OrderedDict([('cuda_version', '12.3'), ('cuda_compute_capabilities', [)])
