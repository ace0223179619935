/* empty: see ../shim/kshim.h and kshim.h */
