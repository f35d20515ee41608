package dev.safetensors.azure;

import com.azure.core.http.HttpHeaderName;
import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpRequest;
import com.azure.core.http.HttpResponse;
import com.azure.core.util.BinaryData;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.RetriedRequest;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.StatusMapping;

import java.io.IOException;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The requests that write one blob: Get Blob Properties (is it there?), Put Blob, Put Block, Put Block List and
 * Delete Blob, each sent through the account's {@link BlobPipeline} under {@link RetriedRequest} and the
 * {@link RemotePolicy}, as the reads are.
 *
 * <p>Every request with a body carries its {@code Content-MD5} (MD5 rather than {@code x-ms-content-crc64}, whose
 * polynomial the JDK does not compute), which the service checks against what it received
 * (refusing a mismatch with {@code 400 Md5Mismatch}); the {@code Content-MD5} it answers with is compared with the
 * local one as well, so that bytes changed on the way in either direction fail the request with
 * {@link ErrorCode#CHECKSUM_MISMATCH}, the code {@link dev.safetensors.spi.ObjectUpload#commit()} names for a store
 * holding other bytes. A conditional create ({@code If-None-Match: *}) refused with {@code 412 ConditionNotMet} or
 * {@code 409 BlobAlreadyExists} is {@link ErrorCode#ALREADY_EXISTS}; other statuses are coded by
 * {@link StatusMapping}. Failures quote the service's {@code x-ms-error-code} and the host that answered, never the
 * URL, whose query may carry a SAS. Thread-safe.
 *
 * <p>A conditional create that is refused only on a retry may have been refused because its own earlier attempt
 * created the blob (the service committed it, but its answer was a 5xx or never came). Before reporting
 * {@link ErrorCode#ALREADY_EXISTS}, such a refusal is checked with one more request: a Put Blob stands if the blob
 * there has its size and MD5 (Get Blob Properties), a Put Block List if the blob's committed blocks are its blocks,
 * whose ids no other writer uses (Get Block List).
 */
final class BlobRequests {
    private static final System.Logger LOG = System.getLogger(BlobRequests.class.getName());
    private static final HttpHeaderName MS_VERSION = HttpHeaderName.fromString("x-ms-version");
    private static final HttpHeaderName BLOB_TYPE = HttpHeaderName.fromString("x-ms-blob-type");
    private static final HttpHeaderName ERROR_CODE = HttpHeaderName.fromString("x-ms-error-code");
    private static final String ANY = "*";
    /** A block's id in a Get Block List answer; base64, so never escaped. */
    private static final Pattern BLOCK_NAME = Pattern.compile("<Name>([A-Za-z0-9+/=]+)</Name>");

    private final BlobPipeline pipeline;
    private final String url;
    private final String name;
    private final RemotePolicy policy;

    /**
     * @param pipeline the account's pipeline, without retries
     * @param url      the blob's URL, without credentials
     * @param name     the blob as its location displays it, for messages
     * @param policy   retries and backoff of every request
     */
    BlobRequests(BlobPipeline pipeline, String url, String name, RemotePolicy policy) {
        this.pipeline = pipeline;
        this.url = url;
        this.name = name;
        this.policy = policy;
    }

    /** @return the blob as messages name it */
    String name() {
        return name;
    }

    /**
     * @return whether the blob exists (Get Blob Properties answered 200, not 404)
     * @throws IOException if the service answers otherwise or not at all
     */
    boolean exists() throws IOException {
        String what = "Get Blob Properties";
        Answer answer = send(what, HttpMethod.HEAD, null, null, false, null);
        if (answer.status() == 200) {
            return true;
        }
        if (answer.status() == 404) {
            return false;
        }
        throw failure(answer, what);
    }

    /**
     * Puts the whole blob in one request.
     *
     * @param bytes     the content
     * @param length    how many bytes of {@code bytes}, from the start
     * @param overwrite whether an existing blob may be replaced; otherwise {@code If-None-Match: *} is sent
     * @return the content's MD5 in base64 if the service confirmed it, else empty
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} if the blob exists and is not to be replaced,
     *                     {@link ErrorCode#CHECKSUM_MISMATCH} if the service holds other bytes, or the service's failure
     */
    Optional<String> putBlob(byte[] bytes, int length, boolean overwrite) throws IOException {
        String md5 = md5(bytes, length);
        Answer answer = send("Put Blob", HttpMethod.PUT, null, BinaryData.fromByteBuffer(ByteBuffer.wrap(bytes, 0,
                length)), !overwrite, md5);
        if (answer.refusedOnARetry() && holds(length, md5)) {
            return Optional.of(md5);
        }
        return Optional.ofNullable(confirmed(answer, "Put Blob", md5));
    }

    /** @return whether the blob there has this size and MD5, as the one a Put Blob that seemed to fail created */
    private boolean holds(long length, String md5) throws IOException {
        String what = "Get Blob Properties";
        Answer answer = send(what, HttpMethod.HEAD, null, null, false, null);
        if (answer.status() == 404) {
            return false;
        }
        if (answer.status() != 200) {
            throw failure(answer, what);
        }
        return md5.equals(answer.md5()) && String.valueOf(length).equals(answer.length());
    }

    /**
     * Stages one block of the blob, uncommitted until a {@link #putBlockList Put Block List} names it.
     *
     * @param blockId the block's id, base64, of the same length as every other block id of the blob
     * @param bytes   the block's content
     * @param length  how many bytes of {@code bytes}, from the start
     * @throws IOException {@link ErrorCode#CHECKSUM_MISMATCH} if the service holds other bytes, or its failure
     */
    void putBlock(String blockId, byte[] bytes, int length) throws IOException {
        String md5 = md5(bytes, length);
        String what = "Put Block";
        Answer answer = send(what, HttpMethod.PUT, "comp=block&blockid=" + URLEncoder.encode(blockId,
                StandardCharsets.UTF_8), BinaryData.fromByteBuffer(ByteBuffer.wrap(bytes, 0, length)), false, md5);
        confirmed(answer, what, md5);
    }

    /**
     * Commits the staged blocks, in order, as the blob's content.
     *
     * @param blockIds  the blocks, in the order of the content
     * @param overwrite whether an existing blob may be replaced; otherwise {@code If-None-Match: *} is sent
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} if the blob exists and is not to be replaced, or the
     *                     service's failure
     */
    void putBlockList(List<String> blockIds, boolean overwrite) throws IOException {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>");
        for (String id : blockIds) {
            // base64 needs no XML escaping
            xml.append("<Latest>").append(id).append("</Latest>");
        }
        byte[] body = xml.append("</BlockList>").toString().getBytes(StandardCharsets.UTF_8);
        String what = "Put Block List";
        Answer answer = send(what, HttpMethod.PUT, "comp=blocklist", BinaryData.fromBytes(body), !overwrite,
                md5(body, body.length));
        if (answer.refusedOnARetry() && blockIds.equals(committedBlocks())) {
            return;
        }
        if (answer.status() != 201) {
            throw failure(answer, what);
        }
    }

    /** @return the ids of the blob's committed blocks, in order; none if the blob is absent */
    private List<String> committedBlocks() throws IOException {
        String what = "Get Block List";
        Answer answer = send(what, HttpMethod.GET, "comp=blocklist&blocklisttype=committed", null, false, null);
        if (answer.status() == 404) {
            return List.of();
        }
        if (answer.status() != 200) {
            throw failure(answer, what);
        }
        List<String> ids = new ArrayList<>();
        Matcher name = BLOCK_NAME.matcher(answer.body());
        while (name.find()) {
            ids.add(name.group(1));
        }
        return ids;
    }

    /**
     * Deletes the blob; a blob or container that is absent is deleted already.
     *
     * @throws IOException if the service refuses or fails the delete
     */
    void delete() throws IOException {
        String what = "Delete Blob";
        Answer answer = send(what, HttpMethod.DELETE, null, null, false, null);
        if (answer.status() != 202 && answer.status() != 404) {
            throw failure(answer, what);
        }
    }

    /**
     * @return the MD5 the service answered, if it equals the local one; {@code null} if it answered none
     * @throws IOException if the status is not 201 Created or the service's MD5 differs
     */
    private String confirmed(Answer answer, String what, String md5) throws IOException {
        if (answer.status() != 201) {
            throw failure(answer, what);
        }
        if (answer.md5() == null) {
            return null;
        }
        if (!answer.md5().equals(md5)) {
            throw new StorageException(ErrorCode.CHECKSUM_MISMATCH, name, what + " was answered with Content-MD5 "
                    + SourceNames.clip(answer.md5()) + " but the bytes sent have MD5 " + md5 + " (from "
                    + answer.host() + "): the service holds other bytes than were written");
        }
        return md5;
    }

    private Answer send(String what, HttpMethod method, String query, BinaryData body, boolean ifNoneMatch,
                        String md5) throws IOException {
        String target = query == null ? url : url + (url.indexOf('?') < 0 ? "?" : "&") + query;
        return RetriedRequest.call(policy, name, what, attempt -> {
            HttpRequest request = new HttpRequest(method, target);
            request.setHeader(MS_VERSION, pipeline.serviceVersion());
            if (body == null) {
                // The shared key signature covers Content-Length; without the header it would sign "null".
                request.setHeader(HttpHeaderName.CONTENT_LENGTH, "0");
            } else {
                request.setBody(body);
            }
            if (md5 != null) {
                request.setHeader(HttpHeaderName.CONTENT_MD5, md5);
            }
            if (method == HttpMethod.PUT && query == null) {
                // Put Blob, the one PUT without a comp= operation, says which kind of blob it creates
                request.setHeader(BLOB_TYPE, "BlockBlob");
            }
            if (ifNoneMatch) {
                request.setHeader(HttpHeaderName.IF_NONE_MATCH, ANY);
            }
            Answer answer;
            try (HttpResponse response = pipeline.send(request, name, what)) {
                int status = response.getStatusCode();
                // only a Get Block List's answer is read: the others say all in their status and headers
                String text = method == HttpMethod.GET && status == 200 ? response.getBodyAsBinaryData().toString()
                        : "";
                answer = new Answer(status, response.getHeaderValue(ERROR_CODE),
                        response.getHeaderValue(HttpHeaderName.CONTENT_MD5),
                        response.getHeaderValue(HttpHeaderName.CONTENT_LENGTH), text, host(request.getUrl()),
                        attempt);
                LOG.log(System.Logger.Level.DEBUG, () -> what + " " + name + " -> " + answer.status()
                        + answer.errorCode());
                if (RemotePolicy.isRetryable(answer.status())) {
                    return RetriedRequest.Outcome.retryable(answer.status(),
                            response.getHeaderValue(HttpHeaderName.RETRY_AFTER),
                            failure(answer, what + " (attempt " + attempt + ")"));
                }
            }
            return RetriedRequest.Outcome.answer(answer);
        });
    }

    private IOException failure(Answer answer, String what) {
        int status = answer.status();
        String said = "HTTP " + status + answer.errorCode() + " from " + answer.host();
        if (answer.refusedAsExisting()) {
            return new StorageException(ErrorCode.ALREADY_EXISTS, name, "the blob already exists and is not to be"
                    + " replaced: " + what + " was refused (" + said + ")");
        }
        if (status == 400 && "Md5Mismatch".equals(answer.code())) {
            return new StorageException(ErrorCode.CHECKSUM_MISMATCH, name, what + " was refused because the bytes"
                    + " the service received do not have the Content-MD5 sent (" + said + ")");
        }
        String hint = status == 401 || status == 403 ? ": the credentials in use may not write this blob (a SAS"
                + " with create, write and delete permissions, the account key, or a role such as Storage Blob Data"
                + " Contributor is needed)" : "";
        return StatusMapping.failure(status, name, what + " answered " + said + hint, null);
    }

    private static String host(URL url) {
        return SourceNames.clip(url.getHost()) + ":" + (url.getPort() >= 0 ? url.getPort() : url.getDefaultPort());
    }

    private static String md5(byte[] bytes, int length) {
        try {
            MessageDigest digest = MessageDigest.getInstance("MD5");
            digest.update(bytes, 0, length);
            return Base64.getEncoder().encodeToString(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
    }

    /**
     * What the service answered.
     *
     * @param status  the status
     * @param code    its {@code x-ms-error-code}, or {@code null}
     * @param md5     its {@code Content-MD5}, or {@code null}
     * @param length  its {@code Content-Length}, or {@code null}
     * @param body    the body of a Get Block List, empty for the other requests
     * @param host    the host and port that answered
     * @param attempt the attempt that was answered, from 1
     */
    private record Answer(int status, String code, String md5, String length, String body, String host,
                          int attempt) {
        /** @return whether a conditional create was refused because the blob exists */
        boolean refusedAsExisting() {
            return status == 412 || (status == 409 && "BlobAlreadyExists".equals(code));
        }

        /** @return whether it was so refused after an earlier attempt of the same request was sent */
        boolean refusedOnARetry() {
            return attempt > 1 && refusedAsExisting();
        }

        /** @return the error code for messages: {@code " ConditionNotMet"}, or empty */
        String errorCode() {
            return code == null || code.isBlank() ? "" : " " + SourceNames.clip(code.trim());
        }
    }
}
