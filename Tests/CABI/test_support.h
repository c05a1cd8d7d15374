/* Helpers of the C ABI test (Tests/CABI/tokencache_test.c): checks, identities, token responses. */
#ifndef TOKENCACHE_TEST_SUPPORT_H
#define TOKENCACHE_TEST_SUPPORT_H

#include <tokencache.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* Expects `status` and, when not OK, an error object of that category with a message. */
static void expect_status(int status, int expected, tokencache_error_t *error, const char *what) {
    checks++;
    if (status != expected) {
        failures++;
        fprintf(stderr, "FAIL %s: status %d, expected %d (%s)\n", what, status, expected,
                error ? tokencache_error_message(error) : "no error object");
    }
    if (expected == TOKENCACHE_OK) {
        CHECK(error == NULL);
    } else if (status == expected) {
        CHECK(error != NULL);
        CHECK((int)tokencache_error_category_of(error) == expected);
        CHECK(tokencache_error_message(error) != NULL && strlen(tokencache_error_message(error)) > 0);
    }
    tokencache_error_free(error);
}

/* The call runs before its error is read (argument evaluation order is unspecified in C). */
#define EXPECT(call, expected, error, what) do { int status_ = (call); expect_status(status_, expected, error, what); error = NULL; } while (0)

static int contains(const char *text, const char *part) { return text && strstr(text, part) != NULL; }

static char *replace(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    if (!at) return strdup(text);
    size_t size = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(size);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), to);
    strcat(out, at + strlen(from));
    return out;
}

#define TENANT "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
#define ALICE_UID "9f4880d8-80ba-4c40-97bc-f7a23c703084"
#define ALICE ALICE_UID "." TENANT
#define BOB "1b6e4d8a-0a5e-4a8c-9c1e-9bd8e0c0b7a2." TENANT
#define APP_A "b6c69a37-df96-4db0-9088-2ab96e1d8215"
#define APP_B "d3590ed6-52b3-4102-aeff-aad2292ab01c"
#define ALICE_CLIENT_INFO "eyJ1aWQiOiI5ZjQ4ODBkOC04MGJhLTRjNDAtOTdiYy1mN2EyM2M3MDMwODQiLCJ1dGlkIjoiZjY0NWFkOTItZTM4ZC00ZDFhLWI1MTAtZDFiMDlhNzRhOGNhIn0"
#define ALICE_ID_TOKEN "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ0aWQiOiJmNjQ1YWQ5Mi1lMzhkLTRkMWEtYjUxMC1kMWIwOWE3NGE4Y2EiLCJvaWQiOiI5ZjQ4ODBkOC04MGJhLTRjNDAtOTdiYy1mN2EyM2M3MDMwODQiLCJzdWIiOiJzIiwicHJlZmVycmVkX3VzZXJuYW1lIjoiYWxpY2VAY29udG9zby5jb20iLCJuYW1lIjoiYWxpY2UiLCJpc3MiOiJodHRwczovL2xvZ2luLm1pY3Jvc29mdG9ubGluZS5jb20vZjY0NWFkOTItZTM4ZC00ZDFhLWI1MTAtZDFiMDlhNzRhOGNhL3YyLjAiLCJ2ZXIiOiIyLjAifQ.sig"
#define BOB_CLIENT_INFO "eyJ1aWQiOiIxYjZlNGQ4YS0wYTVlLTRhOGMtOWMxZS05YmQ4ZTBjMGI3YTIiLCJ1dGlkIjoiZjY0NWFkOTItZTM4ZC00ZDFhLWI1MTAtZDFiMDlhNzRhOGNhIn0"
#define BOB_ID_TOKEN "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ0aWQiOiJmNjQ1YWQ5Mi1lMzhkLTRkMWEtYjUxMC1kMWIwOWE3NGE4Y2EiLCJvaWQiOiIxYjZlNGQ4YS0wYTVlLTRhOGMtOWMxZS05YmQ4ZTBjMGI3YTIiLCJzdWIiOiJzIiwicHJlZmVycmVkX3VzZXJuYW1lIjoiYm9iQGNvbnRvc28uY29tIiwibmFtZSI6ImJvYiIsImlzcyI6Imh0dHBzOi8vbG9naW4ubWljcm9zb2Z0b25saW5lLmNvbS9mNjQ1YWQ5Mi1lMzhkLTRkMWEtYjUxMC1kMWIwOWE3NGE4Y2EvdjIuMCIsInZlciI6IjIuMCJ9.sig"

static char *response(const char *access_token, const char *refresh_token, const char *id_token, const char *client_info) {
    char *text = malloc(4096);
    snprintf(text, 4096,
             "{\"token_type\":\"Bearer\",\"scope\":\"User.Read Mail.Read openid profile\",\"expires_in\":3600,"
             "\"ext_expires_in\":7200,\"access_token\":\"%s\",\"refresh_token\":\"%s\",\"id_token\":\"%s\",\"client_info\":\"%s\"}",
             access_token, refresh_token, id_token, client_info);
    return text;
}

static void save(tokencache_t *cache, const char *client, const char *at, const char *rt, int bob) {
    char request[512];
    snprintf(request, sizeof request,
             "{\"authority\":\"https://login.microsoftonline.com/common\",\"client_id\":\"%s\",\"scopes\":[\"User.Read\",\"Mail.Read\"]}", client);
    char *body = response(at, rt, bob ? BOB_ID_TOKEN : ALICE_ID_TOKEN, bob ? BOB_CLIENT_INFO : ALICE_CLIENT_INFO);
    char *result = NULL;
    tokencache_error_t *error = NULL;
    EXPECT(tokencache_save(cache, request, body, &result, &error), TOKENCACHE_OK, error, "save");
    CHECK(contains(result, "\"home_account_id\""));
    CHECK(!contains(result, at) && !contains(result, rt));
    tokencache_free(result);
    free(body);
}

#endif
