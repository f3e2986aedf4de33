#!/usr/bin/env bash
# Linux AppImage from the frozen folder, for the release workflow's ubuntu runner (appimagetool and its
# runtime are GitHub downloads, which this project's own machines cannot reach; the .deb and .tar.gz are
# built and tested there instead).
#
#   packaging/appimage.sh APPIMAGETOOL    # after packaging/build.sh; writes dist/Switchboard-<version>-<arch>.AppImage
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:?usage: packaging/appimage.sh PATH-TO-appimagetool}
version=$(.venv/bin/python -c 'import sys; sys.path.insert(0, "packaging"); import project; print(project.version())')
app_id=$(.venv/bin/python -c 'import sys; sys.path.insert(0, "packaging"); import project; print(project.APP_ID)')
arch=$(uname -m)
appdir="build/Switchboard.AppDir"
rm -rf "$appdir"
mkdir -p "$appdir/usr/share/applications" "$appdir/usr/share/metainfo"
cp -a dist/switchboard "$appdir/usr/switchboard"
cp "build/${app_id}.desktop" "$appdir/${app_id}.desktop"
cp "build/${app_id}.desktop" "$appdir/usr/share/applications/"
cp "build/${app_id}.metainfo.xml" "$appdir/usr/share/metainfo/${app_id}.appdata.xml"
cp build/icons/256.png "$appdir/${app_id}.png"
cat >"$appdir/AppRun" <<'APPRUN'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
exec "$here/usr/switchboard/switchboard" "$@"
APPRUN
chmod +x "$appdir/AppRun"
ARCH="$arch" "$tool" --no-appstream "$appdir" "dist/Switchboard-${version}-${arch}.AppImage"
