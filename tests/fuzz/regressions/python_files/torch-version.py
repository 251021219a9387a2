__version__ = '2.11.0+cu130'
debug = False
cuda: Optional[str] = '13.0'
git_version = 'abc'
hip: Optional[str] = None
xpu = None
