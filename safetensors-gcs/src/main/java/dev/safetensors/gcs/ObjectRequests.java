package dev.safetensors.gcs;

import com.google.api.client.http.ByteArrayContent;
import com.google.api.client.http.EmptyContent;
import com.google.api.client.http.HttpContent;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.services.storage.model.StorageObject;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.RetriedRequest;
import dev.safetensors.spi.RetriedRequest.Outcome;
import dev.safetensors.spi.StatusMapping;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The requests {@link GcsObjectWriter} makes on the JSON API, each through the client's transport and each
 * {@link RetriedRequest} under the writer's {@link RemotePolicy}: the absence check, the delete, the upload of a
 * whole object in one request and the start of a resumable session ({@link ResumableSession} sends the chunks).
 * Every answer is read whole here, and every failure names the object by its display name and quotes the server's
 * message: never a URL, which for a session carries its {@code upload_id}, a credential for that upload.
 * Thread-safe.
 */
final class ObjectRequests {
    private static final System.Logger LOG = System.getLogger(GcsObjectWriter.class.getName());
    private static final String OCTET_STREAM = "application/octet-stream";

    private final JsonApiTransport transport;
    private final RemotePolicy policy;

    /**
     * One answer, read whole.
     *
     * @param status  the HTTP status
     * @param headers its headers
     * @param said    the server's message for an error, quoted, or empty
     * @param object  the object resource of a successful upload, or {@code null}
     */
    record Answer(int status, HttpHeaders headers, String said, StorageObject object) {
        boolean succeeded() {
            return status / 100 == 2;
        }
    }

    ObjectRequests(JsonApiTransport transport, RemotePolicy policy) {
        this.transport = transport;
        this.policy = policy;
    }

    RemotePolicy policy() {
        return policy;
    }

    /**
     * @return whether the live object exists: its metadata GET answers 200, not 404
     */
    boolean exists(GcsUri object, String name) throws IOException {
        String what = "the check that the object is absent";
        return RetriedRequest.call(policy, name, what, attempt -> {
            Answer answer = send(request("GET", ObjectUrl.metadata(transport.host(), object) + "?fields=generation",
                    null), name, false);
            if (answer.status() == 404) {
                return Outcome.answer(false);
            }
            return answer.succeeded() ? Outcome.answer(true) : refused(answer, name, what);
        });
    }

    /**
     * Deletes the live object, or only the given generation of it; an absent object (404) is success, and so is,
     * for a generation, a 412: that generation is no longer there to delete.
     *
     * @param generation the generation to delete, or -1 for whichever is live
     */
    void delete(GcsUri object, String name, long generation) throws IOException {
        String what = "the delete";
        String url = ObjectUrl.metadata(transport.host(), object)
                + (generation >= 0 ? "?ifGenerationMatch=" + generation : "");
        RetriedRequest.call(policy, name, what, attempt -> {
            Answer answer = send(request("DELETE", url, null), name, false);
            boolean gone = answer.succeeded() || answer.status() == 404 || generation >= 0 && answer.status() == 412;
            return gone ? Outcome.answer(Boolean.TRUE) : refused(answer, name, what);
        });
    }

    /**
     * Uploads a whole object in one request ({@code uploadType=media}) carrying its CRC32C in {@code x-goog-hash}.
     *
     * @return the object resource Cloud Storage answered
     */
    StorageObject uploadWhole(GcsUri object, String name, byte[] bytes, int length, boolean createOnly,
                              String crc32c) throws IOException {
        String what = "the upload";
        String url = ObjectUrl.upload(transport.host(), object, "media", createOnly);
        return RetriedRequest.call(policy, name, what, attempt -> {
            HttpRequest request = request("POST", url, new ByteArrayContent(OCTET_STREAM, bytes, 0, length));
            request.getHeaders().set("x-goog-hash", "crc32c=" + crc32c);
            Answer answer = send(request, name, true);
            if (answer.status() == 412 && attempt > 1) {
                // a one-request upload has no session to ask what an attempt without an answer did
                throw new StorageException(ErrorCode.ALREADY_EXISTS, name, "the object exists and is not to be"
                        + " overwritten (HTTP 412 on ifGenerationMatch=0), but an earlier attempt of this upload got"
                        + " no answer and may have created it: the bytes written have CRC32C '" + crc32c + "'"
                        + answer.said());
            }
            return answer.succeeded() ? Outcome.answer(answer.object()) : refused(answer, name, what);
        });
    }

    /**
     * Starts a resumable upload ({@code uploadType=resumable}).
     *
     * @return the session URI from the answer's {@code Location}
     */
    String startSession(GcsUri object, String name, boolean createOnly) throws IOException {
        String what = "the start of the resumable upload";
        String url = ObjectUrl.upload(transport.host(), object, "resumable", createOnly);
        return RetriedRequest.call(policy, name, what, attempt -> {
            HttpRequest request = request("POST", url, new EmptyContent());
            request.getHeaders().set("X-Upload-Content-Type", OCTET_STREAM);
            Answer answer = send(request, name, false);
            if (!answer.succeeded()) {
                return refused(answer, name, what);
            }
            String session = answer.headers().getLocation();
            if (session == null || !(session.startsWith("https://") || session.startsWith("http://"))) {
                throw new StorageException(ErrorCode.IO_ERROR, name, what + " was answered HTTP " + answer.status()
                        + " without a session URI in Location");
            }
            return Outcome.answer(session);
        });
    }

    /**
     * @param method  the HTTP method
     * @param url     the URL, percent-encoded
     * @param content the body, or {@code null}
     * @return the request, following no redirect: a resumable upload's 308 says how much it holds
     */
    HttpRequest request(String method, String url, HttpContent content) throws IOException {
        HttpRequest request = transport.request(method, url, content);
        request.setFollowRedirects(false);
        return request;
    }

    /**
     * Sends a request once and reads its answer whole, so that the connection can be reused.
     *
     * @param resource whether a success carries the object resource, which is then parsed
     * @throws IOException if no answer came; {@link ErrorCode#IO_ERROR} for an object resource that cannot be read
     */
    Answer send(HttpRequest request, String name, boolean resource) throws IOException {
        HttpResponse response = request.execute();
        try {
            int status = response.getStatusCode();
            LOG.log(System.Logger.Level.DEBUG, () -> request.getRequestMethod() + " " + name + " -> " + status);
            InputStream body = response.getContent();
            if (status / 100 != 2) {
                String said = body == null ? "" : ServerMessage.quoted(ServerMessage.of(body));
                return new Answer(status, response.getHeaders(), said, null);
            }
            return new Answer(status, response.getHeaders(), "", resource ? objectResource(body, name) : null);
        } finally {
            try {
                response.ignore();
            } catch (IOException e) {
                // The answer was read; a failure to close its stream changes nothing for the caller.
                LOG.log(System.Logger.Level.DEBUG, () -> "closing an answer failed: " + e);
            }
        }
    }

    private static StorageObject objectResource(InputStream body, String name) throws StorageException {
        try {
            if (body == null) {
                throw new IOException("no body");
            }
            return GsonFactory.getDefaultInstance().fromInputStream(body, StandardCharsets.UTF_8, StorageObject.class);
        } catch (IOException | RuntimeException e) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "Cloud Storage accepted the upload but its answer is"
                    + " not a readable object resource, so what it holds cannot be checked", e);
        }
    }

    /**
     * @return a retryable outcome for a status worth another attempt, else the failure the answer means, thrown
     */
    static <T> Outcome<T> refused(Answer answer, String name, String what) throws IOException {
        IOException failure = failure(answer, name, what);
        if (RemotePolicy.isRetryable(answer.status())) {
            return Outcome.retryable(answer.status(), answer.headers().getFirstHeaderStringValue("Retry-After"),
                    failure);
        }
        throw failure;
    }

    /**
     * What an answer that is not the one asked means for a write: a 412, which only conditional creates are sent
     * with, is {@link ErrorCode#ALREADY_EXISTS}; a status that names no read failure is
     * {@link ErrorCode#WRITE_FAILED}; the others are {@link StatusMapping}'s, as for reads.
     */
    static IOException failure(Answer answer, String name, String what) {
        int status = answer.status();
        if (status == 412) {
            return new StorageException(ErrorCode.ALREADY_EXISTS, name, "the object already exists and is not to be"
                    + " overwritten: Cloud Storage refused " + what + " (HTTP 412 on ifGenerationMatch=0)"
                    + answer.said());
        }
        String message = what + " was answered HTTP " + status + answer.said() + hint(status);
        ErrorCode code = StatusMapping.code(status);
        return code == ErrorCode.IO_ERROR ? new StorageException(ErrorCode.WRITE_FAILED, name, message)
                : StatusMapping.failure(status, name, message, null);
    }

    private static String hint(int status) {
        return switch (status) {
            case 401 -> "; the request carried no valid credentials: check application default credentials or the"
                    + " Storage passed in";
            case 403 -> "; the credentials in use may not write this object (storage.objects.create is needed, and"
                    + " storage.objects.delete to overwrite or delete)";
            case 404 -> "; check that the bucket exists";
            default -> "";
        };
    }
}
