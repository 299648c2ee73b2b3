/* Registry value types (winnt.h), shared by every layer. */
#ifndef RT_REG_TYPES_H
#define RT_REG_TYPES_H

enum {
    RT_REG_NONE = 0, RT_REG_SZ = 1, RT_REG_EXPAND_SZ = 2, RT_REG_BINARY = 3,
    RT_REG_DWORD = 4, RT_REG_DWORD_BIG_ENDIAN = 5, RT_REG_LINK = 6,
    RT_REG_MULTI_SZ = 7, RT_REG_RESOURCE_LIST = 8,
    RT_REG_FULL_RESOURCE_DESCRIPTOR = 9,
    RT_REG_RESOURCE_REQUIREMENTS_LIST = 10, RT_REG_QWORD = 11,
};

#endif
