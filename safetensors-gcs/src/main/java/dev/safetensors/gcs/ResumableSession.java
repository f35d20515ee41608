package dev.safetensors.gcs;

import com.google.api.client.http.ByteArrayContent;
import com.google.api.client.http.EmptyContent;
import com.google.api.client.http.HttpContent;
import com.google.api.client.http.HttpRequest;
import com.google.api.services.storage.model.StorageObject;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RetriedRequest;
import dev.safetensors.spi.RetriedRequest.Outcome;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One resumable upload session of the JSON API: chunks are sent in order, each a {@code PUT} to the session URI
 * with {@code Content-Range: bytes FIRST-LAST/*}, answered 308 with the {@code Range} the session holds; the last
 * chunk names the total ({@code bytes FIRST-LAST/TOTAL}) and carries the object's CRC32C, and its 200 is the object
 * resource. Each chunk is one {@link RetriedRequest}: an attempt after a failed one first asks the session what it
 * holds ({@code Content-Range: bytes *&#47;TOTAL}, or {@code bytes *&#47;*} before the last chunk) and sends only
 * the rest, since a failed or lost answer may follow bytes the session stored. Not thread-safe: one upload drives
 * it.
 */
final class ResumableSession {
    private static final Pattern HELD = Pattern.compile("bytes=0-(\\d{1,18})");
    private static final String OCTET_STREAM = "application/octet-stream";

    private final ObjectRequests requests;
    private final String name;
    /** A credential for this upload (its {@code upload_id}): never in a message nor a log. */
    private final String uri;
    private long held;

    private ResumableSession(ObjectRequests requests, String name, String uri) {
        this.requests = requests;
        this.name = name;
        this.uri = uri;
    }

    /**
     * @param createOnly whether the object is created only if absent ({@code ifGenerationMatch=0})
     * @return a session holding nothing yet
     */
    static ResumableSession start(ObjectRequests requests, GcsUri object, String name, boolean createOnly)
            throws IOException {
        return new ResumableSession(requests, name, requests.startSession(object, name, createOnly));
    }

    /**
     * Sends the next {@code length} bytes of the object, those that follow what the session holds.
     *
     * @param chunk  the bytes, from index 0
     * @param last   whether they end the object, which the session then stores
     * @param crc32c the object's CRC32C, sent with the last chunk
     * @return the object resource after the last chunk, else {@code null}
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} if a conditional create finds the object at the end, or
     *                     the session's failure after the retries
     */
    StorageObject send(byte[] chunk, int length, boolean last, String crc32c) throws IOException {
        long start = held;
        long end = start + length;
        String total = last ? Long.toString(end) : "*";
        String what = last ? "the last chunk of the resumable upload"
                : "the chunk at byte " + start + " of the resumable upload";
        return RetriedRequest.call(requests.policy(), name, what, attempt -> {
            if (attempt > 1) {
                ObjectRequests.Answer status = requests.send(put(new EmptyContent(), "bytes */" + total), name, last);
                if (status.succeeded()) {
                    return finished(status, last, what);
                }
                if (status.status() != 308) {
                    return refused(status, what);
                }
                held = held(status, start, end, what);
            }
            while (true) {
                if (held == end && !last) {
                    return Outcome.answer(null);
                }
                int from = (int) (held - start);
                String range = held == end ? "bytes */" + total : "bytes " + held + "-" + (end - 1) + "/" + total;
                HttpRequest put = put(new ByteArrayContent(OCTET_STREAM, chunk, from, length - from), range);
                if (last) {
                    put.getHeaders().set("x-goog-hash", "crc32c=" + crc32c);
                }
                ObjectRequests.Answer answer = requests.send(put, name, last);
                if (answer.succeeded()) {
                    return finished(answer, last, what);
                }
                if (answer.status() != 308) {
                    return refused(answer, what);
                }
                long now = held(answer, start, end, what);
                if (now <= held) {
                    throw new StorageException(ErrorCode.WRITE_FAILED, name, what + " was answered 308 holding "
                            + now + " bytes, no more than before it was sent");
                }
                held = now;
            }
        });
    }

    /**
     * Cancels the session, so that it stores nothing; a session already gone (404, 410) is cancelled too. Cloud
     * Storage answers a cancellation with 499.
     *
     * @throws IOException if the cancellation fails after the retries
     */
    void cancel() throws IOException {
        String what = "the cancellation of the resumable upload";
        RetriedRequest.call(requests.policy(), name, what, attempt -> {
            ObjectRequests.Answer answer = requests.send(requests.request("DELETE", uri, null), name, false);
            int status = answer.status();
            if (answer.succeeded() || status == 499 || status == 404 || status == 410) {
                return Outcome.answer(Boolean.TRUE);
            }
            return ObjectRequests.refused(answer, name, what);
        });
    }

    private HttpRequest put(HttpContent content, String range) throws IOException {
        HttpRequest request = requests.request("PUT", uri, content);
        request.getHeaders().setContentRange(range);
        return request;
    }

    private Outcome<StorageObject> finished(ObjectRequests.Answer answer, boolean last, String what)
            throws StorageException {
        if (!last) {
            throw new StorageException(ErrorCode.WRITE_FAILED, name, what + " was answered HTTP " + answer.status()
                    + ": the session stored the object before its last chunk");
        }
        return Outcome.answer(answer.object());
    }

    private <T> Outcome<T> refused(ObjectRequests.Answer answer, String what) throws IOException {
        if (answer.status() == 404 || answer.status() == 410) {
            throw new StorageException(ErrorCode.WRITE_FAILED, name, what + " was answered HTTP " + answer.status()
                    + ": the upload session is gone (cancelled, or expired a week after it started)" + answer.said());
        }
        return ObjectRequests.refused(answer, name, what);
    }

    /** @return how many bytes of the object the session holds by a 308's {@code Range}, checked to be in this chunk */
    private long held(ObjectRequests.Answer answer, long start, long end, String what) throws StorageException {
        String range = answer.headers().getFirstHeaderStringValue("Range");
        long bytes;
        if (range == null) {
            bytes = 0;
        } else {
            Matcher m = HELD.matcher(range.trim());
            if (!m.matches()) {
                throw new StorageException(ErrorCode.WRITE_FAILED, name, what + " was answered 308 with a malformed"
                        + " Range '" + SourceNames.clip(range) + "'");
            }
            bytes = Long.parseLong(m.group(1)) + 1;
        }
        if (bytes < start || bytes > end) {
            throw new StorageException(ErrorCode.WRITE_FAILED, name, what + " was answered 308 holding " + bytes
                    + " bytes, outside the chunk from byte " + start + " to " + end);
        }
        return bytes;
    }
}
