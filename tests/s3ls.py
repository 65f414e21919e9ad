#!/usr/bin/env python3
# List a bucket through the S3 API, for the tests' "the bucket is as it was" checks on any
# server (s3rver, radosgw): python3 tests/s3ls.py BUCKET [PREFIX] prints "key size" per
# object, sorted; python3 tests/s3ls.py BUCKET --uploads prints the multipart uploads in
# progress ("key"), which an aborted upload must not leave; --put KEY FILE stores a file
# as an object (a user's own object beside gpufeed's) and --delete-prefix PREFIX deletes
# every object under PREFIX (what a user does to drop kept checkpoints). Endpoint and credentials from
# AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION. Standard library
# only: requests are signed here (AWS Signature Version 4, path-style, unsigned payload).
import datetime
import hashlib
import hmac
import os
import re
import sys
import urllib.parse
import urllib.request


def request(bucket, query, method="GET", key="", body=b""):
    ep = urllib.parse.urlsplit(os.environ["AWS_ENDPOINT_URL"])
    ak, sk = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
    region = os.environ.get("AWS_REGION", "us-east-1")
    now = datetime.datetime.now(datetime.timezone.utc)
    amz, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    q = "&".join("%s=%s" % (urllib.parse.quote(k, safe="-_.~"), urllib.parse.quote(v, safe="-_.~"))
                 for k, v in sorted(query.items()))
    h = "UNSIGNED-PAYLOAD"
    path = "/%s%s" % (bucket, "/" + urllib.parse.quote(key, safe="-_.~/") if key else "")
    canon = "%s\n%s\n%s\nhost:%s\nx-amz-content-sha256:%s\nx-amz-date:%s\n\nhost;x-amz-content-sha256;x-amz-date\n%s" % (
        method, path, q, ep.netloc, h, amz, h)
    scope = "%s/%s/s3/aws4_request" % (day, region)
    sts = "AWS4-HMAC-SHA256\n%s\n%s\n%s" % (amz, scope, hashlib.sha256(canon.encode()).hexdigest())
    k = ("AWS4" + sk).encode()
    for part in (day, region, "s3", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    req = urllib.request.Request("%s://%s%s?%s" % (ep.scheme, ep.netloc, path, q), method=method,
                                 data=body if method == "PUT" else None, headers={
        "x-amz-content-sha256": h, "x-amz-date": amz,
        "Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                         "Signature=%s" % (ak, scope, sig)})
    return urllib.request.urlopen(req, timeout=30).read().decode()


def tag(xml, name):
    return [m.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
            for m in re.findall("<%s>(.*?)</%s>" % (name, name), xml, re.S)]


def keys(bucket, prefix):
    out, token = [], None
    while True:
        query = {"list-type": "2", "prefix": prefix}
        if token:
            query["continuation-token"] = token
        xml = request(bucket, query)
        for c in re.findall("<Contents>(.*?)</Contents>", xml, re.S):
            out.append((tag(c, "Key")[0], tag(c, "Size")[0]))
        t = tag(xml, "NextContinuationToken")
        if "<IsTruncated>true</IsTruncated>" not in xml or not t:
            return out
        token = t[0]


def main():
    bucket = sys.argv[1]
    if len(sys.argv) > 4 and sys.argv[2] == "--put":
        with open(sys.argv[4], "rb") as f:
            request(bucket, {}, "PUT", sys.argv[3], f.read())
        return
    if len(sys.argv) > 3 and sys.argv[2] == "--delete-prefix":
        for key, _ in keys(bucket, sys.argv[3]):
            request(bucket, {}, "DELETE", key)
        return
    if len(sys.argv) > 2 and sys.argv[2] == "--uploads":
        xml = request(bucket, {"uploads": ""})
        for key in sorted(tag(xml, "Key")):
            print(key)
        return
    prefix = sys.argv[2] if len(sys.argv) > 2 else ""
    out = ["%s %s" % kv for kv in keys(bucket, prefix)]
    for line in sorted(out):
        print(line)


main()
