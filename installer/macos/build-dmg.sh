#!/usr/bin/env bash
# macOS: build Switchboard.app (PyInstaller's BUNDLE in packaging/switchboard.spec, Info.plist from
# packaging/render.py) and a drag-to-Applications .dmg. Runs on a macOS machine (the release workflow's
# macos runner); needs iconutil, hdiutil and, for signing, codesign/notarytool from Xcode.
#
#   installer/macos/build-dmg.sh
#
# Signing and notarisation hooks (all optional; see installer/README.md):
#   MACOS_SIGN_IDENTITY   "Developer ID Application: …" → codesign --options runtime (hardened runtime)
#   MACOS_NOTARY_PROFILE  a `xcrun notarytool store-credentials` profile → notarise and staple the .dmg
# Output: dist/Switchboard.app and dist/Switchboard-<version>-macos-<arch>.dmg
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-.venv/bin/python}
PYINSTALLER=${PYINSTALLER:-.venv/bin/pyinstaller}
version=$("$PYTHON" -c 'import sys; sys.path.insert(0, "packaging"); import project; print(project.version())')
arch=$(uname -m)
app="dist/Switchboard.app"
dmg="dist/Switchboard-${version}-macos-${arch}.dmg"

echo "build-dmg: Switchboard ${version} (${arch})"
QT_QPA_PLATFORM=offscreen "$PYTHON" packaging/render.py build

# The .icns from the rendered PNGs (iconutil wants these names).
iconset="build/icons/switchboard.iconset"
rm -rf "$iconset"
mkdir -p "$iconset"
for size in 16 32 128 256 512; do
    cp "build/icons/${size}.png" "$iconset/icon_${size}x${size}.png"
    cp "build/icons/$((size * 2)).png" "$iconset/icon_${size}x${size}@2x.png"
done
iconutil --convert icns --output build/icons/switchboard.icns "$iconset"

rm -rf "$app" dist/switchboard
"$PYINSTALLER" --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/switchboard.spec
plutil -lint "$app/Contents/Info.plist"

if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
    echo "build-dmg: signing with ${MACOS_SIGN_IDENTITY}"
    codesign --force --deep --timestamp --options runtime \
        --entitlements installer/macos/entitlements.plist --sign "$MACOS_SIGN_IDENTITY" "$app"
    codesign --verify --deep --strict --verbose=2 "$app"
fi

# The bundled app must start before it is packed.
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
"$app/Contents/MacOS/switchboard" --version
QT_QPA_PLATFORM=offscreen "$app/Contents/MacOS/switchboard" --home "$home" --smoke-test

staging="build/dmg"
rm -rf "$staging" "$dmg"
mkdir -p "$staging"
cp -R "$app" "$staging/"
ln -s /Applications "$staging/Applications"
hdiutil create -volname "Switchboard ${version}" -srcfolder "$staging" -fs HFS+ -format UDZO -ov "$dmg"

if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
    codesign --force --timestamp --sign "$MACOS_SIGN_IDENTITY" "$dmg"
fi
if [ -n "${MACOS_NOTARY_PROFILE:-}" ]; then
    echo "build-dmg: notarising ${dmg}"
    xcrun notarytool submit "$dmg" --keychain-profile "$MACOS_NOTARY_PROFILE" --wait
    xcrun stapler staple "$dmg"
fi
echo "build-dmg: ${dmg}"
