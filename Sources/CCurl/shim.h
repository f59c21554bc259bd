#ifndef CAMFX_CCURL_SHIM_H
#define CAMFX_CCURL_SHIM_H
// libcurl (Debian libcurl4-openssl-dev): the archive's HTTP, signed with its AWS
// Signature V4 (CURLOPT_AWS_SIGV4). curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call: one typed wrapper each per argument kind.
// OpenSSL's libcrypto (libssl-dev, which libcurl's OpenSSL flavour links anyway) gives
// the MD5 every uploaded byte is checked with (Content-MD5).
#include <curl/curl.h>
#include <openssl/evp.h>

static inline CURLcode camfx_curl_set_long(CURL *curl, CURLoption option, long value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode camfx_curl_set_offset(CURL *curl, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode camfx_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode camfx_curl_set_string(CURL *curl, CURLoption option, const char *value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode camfx_curl_set_list(CURL *curl, CURLoption option, struct curl_slist *value) {
  return curl_easy_setopt(curl, option, value);
}
typedef size_t (*camfx_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
static inline CURLcode camfx_curl_set_data_callback(CURL *curl, CURLoption option, camfx_curl_data_callback value) {
  return curl_easy_setopt(curl, option, value);
}
typedef int (*camfx_curl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                            curl_off_t upload_total, curl_off_t uploaded);
static inline CURLcode camfx_curl_set_progress_callback(CURL *curl, camfx_curl_progress_callback value) {
  return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, value);
}
static inline long camfx_curl_response_code(CURL *curl) {
  long code = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  return code;
}
#endif
