# Sourced by the device scripts. unxz_to FILE.xz OUT: with xz where the machine has it, else python3's lzma
# (python3 is always there; xz may not be).
unxz_to() {
  if command -v xz >/dev/null; then xz -dc "$1" >"$2"
  else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; fi
}
