# Installing pescope as a desktop application, and its Debian package (issue 15).
#   cmake --install build [--prefix P]    the executable, a desktop entry, icons (16-512 px and
#                                          SVG), AppStream metainfo, the session MIME type, a man
#                                          page and bash completion
#   (cd build && cpack -G DEB)            pescope_<version>_<arch>.deb with the same files
# The man page and the completion are generated from the built program's own --help output, so
# they list exactly the options the program parses. Included from the top-level CMakeLists.txt.

include(GNUInstallDirs)

set(PE_APP_ID "io.github.pescope.pescope" CACHE STRING
    "Reverse-DNS id of the desktop entry and the AppStream component")
set(PE_HOMEPAGE "https://github.com/pescope/pescope" CACHE STRING
    "Project homepage, named in the AppStream metainfo")
set(PE_SCREENSHOT_URL "https://raw.githubusercontent.com/pescope/pescope/main/docs/screenshots"
    CACHE STRING "Where the README's docs/screenshots are served, for the AppStream metainfo")
set(PE_PROJECT_LICENSE "" CACHE STRING
    "SPDX licence expression for the AppStream metainfo and the package (empty: none stated)")
set(PE_SESSION_MIME_TYPE "application/x-pescope-session+json")

if(PE_NATIVE_ARCH)
  message(WARNING "PE_NATIVE_ARCH is ON: the installed program and the package run only on CPUs "
                  "like this one. Configure with -DPE_NATIVE_ARCH=OFF to build one for others.")
endif()

# The window names its desktop entry, so desktops match the window to the menu entry and icon.
target_compile_definitions(pe_cli PRIVATE PE_APP_ID="${PE_APP_ID}")

# The release date of PROJECT_VERSION: the date of the commit built, else today (or
# SOURCE_DATE_EPOCH), so a rebuild of the same commit gives the same files.
set(PE_RELEASE_DATE "")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" log -1 --format=%cs
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    OUTPUT_VARIABLE PE_RELEASE_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT PE_RELEASE_DATE MATCHES "^[0-9]+-[0-9]+-[0-9]+$")
  string(TIMESTAMP PE_RELEASE_DATE "%Y-%m-%d" UTC)
endif()

set(pe_share "${PROJECT_BINARY_DIR}/share")
set(pe_desktop_dir "${PROJECT_SOURCE_DIR}/resources/desktop")
set(pe_icon_dir "${PROJECT_SOURCE_DIR}/resources/icons")

if(PE_PROJECT_LICENSE)
  set(PE_PROJECT_LICENSE_TAG "<project_license>${PE_PROJECT_LICENSE}</project_license>")
else()
  set(PE_PROJECT_LICENSE_TAG "")
endif()
configure_file("${pe_desktop_dir}/pescope.desktop.in"
               "${pe_share}/applications/${PE_APP_ID}.desktop" @ONLY)
configure_file("${pe_desktop_dir}/pescope.metainfo.xml.in"
               "${pe_share}/metainfo/${PE_APP_ID}.metainfo.xml" @ONLY)
configure_file("${pe_desktop_dir}/pescope-mime.xml.in"
               "${pe_share}/mime/packages/pescope.xml" @ONLY)

# Icons: the PNG sizes of the hicolor theme rendered from the SVGs by a small Qt tool, at build
# time (pescope-16.svg is drawn on the 16 px grid for the smallest sizes).
set(PE_ICON_SIZES 16 22 24 32 48 64 128 256 512)
add_executable(pe_rendericon "${PROJECT_SOURCE_DIR}/resources/tools/rendericon.cpp")
target_link_libraries(pe_rendericon PRIVATE Qt6::Gui Qt6::Svg)
pe_target_defaults(pe_rendericon)
set(pe_icon_pngs "")
string(REPLACE ";" ", " pe_icon_size_text "${PE_ICON_SIZES}")
foreach(size IN LISTS PE_ICON_SIZES)
  list(APPEND pe_icon_pngs "${pe_share}/icons/hicolor/${size}x${size}/apps/pescope.png")
endforeach()
add_custom_command(
  OUTPUT ${pe_icon_pngs}
  COMMAND pe_rendericon "${pe_share}/icons/hicolor" "${pe_icon_dir}/pescope-16.svg"
          "${pe_icon_dir}/pescope.svg" 24 ${PE_ICON_SIZES}
  DEPENDS pe_rendericon "${pe_icon_dir}/pescope-16.svg" "${pe_icon_dir}/pescope.svg"
  COMMENT "Rendering the icon at ${pe_icon_size_text} px"
  VERBATIM)
add_custom_target(pe_icons ALL DEPENDS ${pe_icon_pngs})

# Man page and bash completion from `pescope --help` and `pescope <command> --help`.
find_package(Python3 COMPONENTS Interpreter)
set(pe_man "${pe_share}/man/man1/pescope.1")
set(pe_completion "${pe_share}/bash-completion/completions/pescope")
if(Python3_Interpreter_FOUND)
  add_custom_command(
    OUTPUT "${pe_man}" "${pe_completion}"
    COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen PE_CPU_KERNELS=auto
            "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/resources/tools/genclidocs.py"
            --pescope "$<TARGET_FILE:pescope>" --version "${PROJECT_VERSION}"
            --date "${PE_RELEASE_DATE}" --man "${pe_man}" --bash-completion "${pe_completion}"
    DEPENDS pescope "${PROJECT_SOURCE_DIR}/resources/tools/genclidocs.py"
    COMMENT "Generating the man page and bash completion from pescope --help"
    VERBATIM)
  add_custom_target(pe_clidocs ALL DEPENDS "${pe_man}" "${pe_completion}")
  install(FILES "${pe_man}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
  install(FILES "${pe_completion}"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions")
else()
  message(WARNING "No Python 3 found: the man page and bash completion are not generated")
endif()

install(FILES "${pe_share}/applications/${PE_APP_ID}.desktop"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
install(FILES "${pe_share}/metainfo/${PE_APP_ID}.metainfo.xml"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
install(FILES "${pe_share}/mime/packages/pescope.xml"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/mime/packages")
install(FILES "${pe_icon_dir}/pescope.svg"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps")
foreach(size IN LISTS PE_ICON_SIZES)
  install(FILES "${pe_share}/icons/hicolor/${size}x${size}/apps/pescope.png"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps")
endforeach()

# The Python module (python/, issue 31): in Debian's folder for public modules under the prefix,
# lib/python3/dist-packages, where Debian's python3 finds it under /usr (the .deb). Under any
# other prefix (/usr/local by default) python3 does not look there: a pescope.pth in the site
# folder Debian's python3 reads under that prefix (lib/python3.X/dist-packages) names the folder.
# Decided at install time, so the .deb (installed under /usr) has no .pth.
set(PE_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
    "Where the Python module is installed, relative to the prefix")
if(TARGET pe_python)
  install(TARGETS pe_python LIBRARY DESTINATION "${PE_PYTHON_INSTALL_DIR}"
    PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  install(CODE "
    if(NOT CMAKE_INSTALL_PREFIX MATCHES \"/usr/?$\")
      set(pe_site \"lib/python${PE_PYTHON_VERSION}/dist-packages\")
      file(WRITE \"${PROJECT_BINARY_DIR}/python/pescope.pth\"
           \"\${CMAKE_INSTALL_PREFIX}/${PE_PYTHON_INSTALL_DIR}\\n\")
      file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${pe_site}\"
           TYPE FILE FILES \"${PROJECT_BINARY_DIR}/python/pescope.pth\")
    endif()")
endif()

# The Debian package. Depends come from dpkg-shlibdeps on the installed binary, plus the Qt
# platform plugins (loaded at run time, so no library dependency names them) and, for the GPU
# backend, Mesa's OpenGL drivers as a recommendation. Menus, MIME and icon caches are refreshed
# by the triggers of desktop-file-utils, shared-mime-info and the icon theme: no scripts needed.
set(CPACK_PACKAGE_NAME "pescope")
set(CPACK_PACKAGE_VENDOR "The pescope developers")
set(CPACK_PACKAGE_CONTACT "The pescope developers <maintainers@users.noreply.a-seed-78883ee0.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PE_HOMEPAGE}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libgl1-mesa-dri, libopenblas0") # OpenBLAS: dlopen()ed by the forward pass
if(TARGET pe_python)
  # The Python module: built for one Python version (its file name says which), and NumPy.
  string(REPLACE "." ";" pe_python_version_parts "${PE_PYTHON_VERSION}")
  list(GET pe_python_version_parts 1 pe_python_minor)
  math(EXPR pe_python_next "${pe_python_minor} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", python3 (>= ${PE_PYTHON_VERSION}), "
         "python3 (<< 3.${pe_python_next}), python3-numpy")
endif()
# The long description; CPack puts the summary line above it and indents it as Debian wants.
set(CPACK_PACKAGE_DESCRIPTION
    "pescope shows and exports the positional encodings of transformer models:
sinusoidal (interleaved or split), learned, RoPE with its scaling rules, ALiBi
and T5 buckets, computed exactly on the CPU or an OpenGL 4.3 GPU. It has a
desktop window for exploring and teaching, and a command line that writes
matrices (.npy, .csv) and figures (PNG, SVG, PDF) without a display.")
set(CPACK_GENERATOR "DEB")
include(CPack)
