/* stand-in for <simd/simd.h>: qdc's MSL uses none of it */
