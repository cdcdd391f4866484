/* What decoding alone costs: CPU per frame to decode a video with libavcodec on one
 * thread, with or without converting each frame to BGR (as OpenCV's reader does).
 * The floor under issue 32's ratio (one 1920x1080 view of four boards against four
 * 640x480 cameras): any reader that decodes every pixel pays at least this.
 *
 *   gcc -O2 tests/tools/decode_cost.c -o /tmp/decode_cost -lavformat -lavcodec -lswscale -lavutil
 *   /tmp/decode_cost VIDEO CONVERT [THREADS]     (CONVERT 0: decode only; 1: and to BGR)
 */
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/imgutils.h>
#include <stdio.h>
#include <time.h>
static double cpu(){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int conv=atoi(argv[2]); int threads=argc>3?atoi(argv[3]):1;
  AVFormatContext*f=NULL; avformat_open_input(&f,argv[1],NULL,NULL); avformat_find_stream_info(f,NULL);
  int si=av_find_best_stream(f,AVMEDIA_TYPE_VIDEO,-1,-1,NULL,0);
  const AVCodec*c=avcodec_find_decoder(f->streams[si]->codecpar->codec_id);
  AVCodecContext*cc=avcodec_alloc_context3(c); avcodec_parameters_to_context(cc,f->streams[si]->codecpar);
  cc->thread_count=threads; avcodec_open2(cc,c,NULL);
  AVPacket*p=av_packet_alloc(); AVFrame*fr=av_frame_alloc(); struct SwsContext*s=NULL; uint8_t*dst=NULL; int n=0;
  double t0=cpu();
  while(av_read_frame(f,p)>=0){ if(p->stream_index==si){ avcodec_send_packet(cc,p);
    while(avcodec_receive_frame(cc,fr)==0){ n++;
      if(conv){ if(!s){s=sws_getContext(fr->width,fr->height,fr->format,fr->width,fr->height,AV_PIX_FMT_BGR24,SWS_BICUBIC,0,0,0);dst=malloc(fr->width*fr->height*3);}
        uint8_t*d[1]={dst}; int ls[1]={fr->width*3}; sws_scale(s,(const uint8_t*const*)fr->data,fr->linesize,0,fr->height,d,ls);} } }
    av_packet_unref(p);}
  double t=cpu()-t0; printf("%s %s fmt=%d codec=%s frames=%d %.3f ms/frame\n",argv[1],conv?"decode+bgr":"decode",cc->pix_fmt,c->name,n,t*1000/n);
}
