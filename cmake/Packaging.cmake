# What `cmake --install` adds beside the binary, its completions and man page (src/CMakeLists.txt),
# and the packages CPack makes of it all: `cpack -G DEB`, `-G RPM`, `-G TGZ` in a build
# folder, e.g. build-release (the portable binary: the packages then need only glibc 2.28).
include_guard(GLOBAL)

if(NOT SKBUILD)
  install(FILES ${PROJECT_SOURCE_DIR}/docs/report.schema.json DESTINATION share/cudacheck)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/policies/ DESTINATION share/cudacheck/policies)
  # The Slurm health check (docs/cluster.md): copied to /usr/local/sbin by whoever enables it.
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/slurm/cudacheck-healthcheck.sh DESTINATION share/cudacheck/slurm)
  install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION share/doc/cudacheck)
endif()

set(CPACK_PACKAGE_NAME cudacheck)
set(CPACK_PACKAGE_VENDOR "cudacheck")
set(CPACK_PACKAGE_CONTACT "cudacheck maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/cudacheck/cudacheck")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_GENERATOR "")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
if(CUDACHECK_PORTABLE)
  # The portable binary needs the C library's GLIBC_2.28 symbols and nothing else
  # (tools/check-release-binary.sh). dpkg-shlibdeps would say libc6 >= 2.34 here, because Debian 12's
  # libc6 lists libpthread's and libdl's symbols from 2.34, when they moved into libc.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.28)")
  set(CPACK_RPM_PACKAGE_REQUIRES "glibc >= 2.28")
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE MIT)
set(CPACK_RPM_PACKAGE_AUTOREQ OFF)
# Directories every system already owns: the package must not claim them.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION /usr/share/man /usr/share/man/man1 /usr/share/bash-completion
    /usr/share/bash-completion/completions /usr/share/zsh /usr/share/zsh/site-functions /usr/share/fish /usr/share/fish/vendor_completions.d
    /usr/share/doc)
set(CPACK_GENERATOR TGZ DEB RPM)
include(CPack)
