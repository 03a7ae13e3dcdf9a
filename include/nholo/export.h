/* nholo/export.h - symbol visibility for the nholo library. */
#ifndef NHOLO_EXPORT_H
#define NHOLO_EXPORT_H

#if defined(NHOLO_STATIC)
#define NH_API
#elif defined(_WIN32)
#if defined(NHOLO_BUILDING)
#define NH_API __declspec(dllexport)
#else
#define NH_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define NH_API __attribute__((visibility("default")))
#else
#define NH_API
#endif

#endif
