/* empty: see kshim.h */
