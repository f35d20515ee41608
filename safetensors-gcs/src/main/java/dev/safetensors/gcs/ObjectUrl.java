package dev.safetensors.gcs;

/**
 * The JSON API URLs of the writer's requests on one object: its metadata
 * ({@code HOST/storage/v1/b/BUCKET/o/OBJECT}, for the absence check and the delete) and its uploads
 * ({@code HOST/upload/storage/v1/b/BUCKET/o?uploadType=TYPE&name=OBJECT}). Names are percent-encoded as
 * {@link MediaUrl} encodes them, so a {@code /} inside an object name is sent as {@code %2F}.
 */
final class ObjectUrl {
    private ObjectUrl() {
    }

    /**
     * @param host   the storage host, without a trailing slash
     * @param object the object
     * @return the URL of the object resource
     */
    static String metadata(String host, GcsUri object) {
        StringBuilder sb = new StringBuilder(host).append("/storage/v1/b/");
        MediaUrl.segment(sb, object.bucket());
        sb.append("/o/");
        MediaUrl.segment(sb, object.object());
        return sb.toString();
    }

    /**
     * @param host        the storage host, without a trailing slash
     * @param object      the object
     * @param uploadType  {@code media} (one request) or {@code resumable} (a session)
     * @param createOnly  whether the upload is a conditional create, {@code ifGenerationMatch=0}
     * @return the upload URL
     */
    static String upload(String host, GcsUri object, String uploadType, boolean createOnly) {
        StringBuilder sb = new StringBuilder(host).append("/upload/storage/v1/b/");
        MediaUrl.segment(sb, object.bucket());
        sb.append("/o?uploadType=").append(uploadType).append("&name=");
        MediaUrl.segment(sb, object.object());
        if (createOnly) {
            sb.append("&ifGenerationMatch=0");
        }
        return sb.toString();
    }
}
