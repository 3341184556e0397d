echo "[  PASSED  ] 0 test(s)."
