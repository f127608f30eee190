"""The style and the one script of the multiverse view (``render.page``), kept apart from the drawing.

The script's ``window.fivedpView(keep)`` starts the view on the page's picture; it returns the view's
``state()`` (the part of the multiverse shown, the step, the timelines hidden) and ``go(step)``, and
given such a state it starts there instead of fitting the picture to the window. The table of
``fivedp serve`` draws each new picture of a game in the same frame that way, so that the player's
zoom, pan and step survive every update.

The script is small and reads nothing but the page: it never writes markup, only classes, the SVG's
``viewBox`` and ``textContent``, so no name from the input can become markup through it. The page's
Content-Security-Policy allows exactly this script, by its sha256.
"""

CSS = """
svg,body{font-family:system-ui,sans-serif;}
body{margin:0;background:#fafafa;color:#222}
h1{font-size:18px;margin:0 8px 0 0;display:inline} h2{font-size:13px;margin:4px 0}
header{padding:8px 12px;border-bottom:1px solid #ccc;background:#fff}
.controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin-top:6px;font-size:13px}
.controls button{font-size:13px;padding:1px 8px}
.tls{display:flex;flex-wrap:wrap;gap:2px 8px;font-size:12px}
.layout{display:flex;align-items:stretch}
svg.view{flex:1;height:calc(100vh - 150px);min-height:420px;background:#eef1f4;cursor:grab;touch-action:none}
aside{width:340px;flex:none;border-left:1px solid #ccc;background:#fff;padding:6px 10px;overflow:auto;height:calc(100vh - 150px);min-height:420px;box-sizing:border-box}
pre{background:#fff;font-size:12px;white-space:pre-wrap;margin:4px 0}
#info{min-height:3em;border-bottom:1px solid #ddd;padding-bottom:4px}
.lbl,.bname,.fork,.elsewhere{pointer-events:none}
.board.acting .frame{stroke:#e67e22;stroke-width:6}
.board{cursor:pointer}
.order:hover .arrow,.order:hover .ring{stroke-width:6;opacity:1}
.single .order:hover .arrow,.single .order:hover .ring{stroke-width:8}
.orders:hover .order{opacity:.3} .orders .order:hover{opacity:1}
.steporders.past{opacity:.3}
.forkline.new path{stroke-width:4}
.off{display:none}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;font-size:12px;margin:6px 0 0}
.legend svg{vertical-align:middle}
svg.hidden{position:absolute}
"""
"""What the pointer and the step selector change, and the page around the picture. The picture's own
colours, lines and text sizes are presentation attributes on its shapes (``render.paint``): it reads
in renderers without CSS, and a rule here overrides them only where the page changes them."""

SCRIPT = """(function(){
function start(keep){
var svg=document.getElementById('view');if(!svg)return null;
var b=svg.viewBox.baseVal,home=[b.x,b.y,b.width,b.height],vb=home.slice();
var last=+svg.getAttribute('data-steps')-1,step=+svg.getAttribute('data-start');
var slider=document.getElementById('step'),info=document.getElementById('info'),all=document.getElementById('all');
var label=document.getElementById('stepno'),hidden={};
function q(s,r){return Array.prototype.slice.call((r||document).querySelectorAll(s));}
function has(list,v){return (' '+(list||'')+' ').indexOf(' '+v+' ')>=0;}
function setVB(v){vb=v;svg.setAttribute('viewBox',v.join(' '));}
function show(){
 q('[data-from]',svg).forEach(function(e){
  var on=+e.getAttribute('data-from')<=step&&step<=+e.getAttribute('data-to')&&!hidden[e.getAttribute('data-tl')];
  e.classList.toggle('off',!on);
  if(e.hasAttribute('data-acting'))e.classList.toggle('acting',has(e.getAttribute('data-acting'),step));
  if(e.classList.contains('forkline'))e.classList.toggle('new',+e.getAttribute('data-from')===step);});
 q('g.steporders',svg).forEach(function(g){var s=+g.getAttribute('data-step');
  g.classList.toggle('off',!(s===step||all.checked&&s<step));g.classList.toggle('past',s!==step);});
 q('g.order',svg).forEach(function(g){g.classList.toggle('off',!!hidden[g.getAttribute('data-tl')]);});
 q('.steptext').forEach(function(d){var on=+d.getAttribute('data-step')===step;d.hidden=!on;
  if(on)label.textContent=d.getAttribute('data-label');});
 slider.value=step;}
function go(s){step=Math.max(0,Math.min(last,s));show();}
slider.addEventListener('input',function(){go(+slider.value);});
document.getElementById('prev').addEventListener('click',function(){go(step-1);});
document.getElementById('next').addEventListener('click',function(){go(step+1);});
document.getElementById('fit').addEventListener('click',function(){setVB(home);});
all.addEventListener('change',show);
q('input[data-tl]').forEach(function(c){c.addEventListener('change',function(){
 hidden[c.getAttribute('data-tl')]=!c.checked;show();});});
function pt(ev){var p=svg.createSVGPoint();p.x=ev.clientX;p.y=ev.clientY;return p.matrixTransform(svg.getScreenCTM().inverse());}
svg.addEventListener('wheel',function(ev){ev.preventDefault();var k=ev.deltaY>0?1.2:1/1.2,p=pt(ev);
 setVB([p.x-(p.x-vb[0])*k,p.y-(p.y-vb[1])*k,vb[2]*k,vb[3]*k]);},{passive:false});
var drag=null;
svg.addEventListener('pointerdown',function(ev){drag={x:ev.clientX,y:ev.clientY,v:vb.slice(),k:1/svg.getScreenCTM().a,moved:false};});
svg.addEventListener('pointermove',function(ev){if(!drag)return;var dx=ev.clientX-drag.x,dy=ev.clientY-drag.y;
 if(Math.abs(dx)+Math.abs(dy)>4)drag.moved=true;
 if(drag.moved)setVB([drag.v[0]-dx*drag.k,drag.v[1]-dy*drag.k,drag.v[2],drag.v[3]]);});
svg.addEventListener('pointerup',function(ev){var d=drag;drag=null;if(!d||d.moved)return;
 var g=ev.target.closest&&ev.target.closest('g.board');if(!g)return;var r=g.querySelector('rect.frame');
 var x=+r.getAttribute('x'),y=+r.getAttribute('y'),w=+r.getAttribute('width'),h=+r.getAttribute('height');
 setVB([x-w*0.05,y-h*0.05,w*1.1,h*1.1]);tell(g);});
function tell(g){var t=g.querySelector('title');if(t)info.textContent=t.textContent;}
svg.addEventListener('mouseover',function(ev){var g=ev.target.closest&&ev.target.closest('g.order,.unit,g.forkline,g.board');if(g)tell(g);});
document.onkeydown=function(ev){if(ev.target.tagName==='INPUT'&&ev.target.type!=='checkbox')return;
 if(ev.key==='ArrowLeft')go(step-1);else if(ev.key==='ArrowRight')go(step+1);else if(ev.key==='Escape')setVB(home);};
if(keep){hidden=keep.hidden;all.checked=keep.all;step=keep.atLast?last:Math.min(last,keep.step);
 q('input[data-tl]').forEach(function(c){c.checked=!hidden[c.getAttribute('data-tl')];});}
show();
var r=svg.getBoundingClientRect(),cell=+svg.getAttribute('data-cell');
if(keep)setVB(keep.vb);
else if(r.width>0&&r.width/home[2]*cell<170){
 var w=r.width/170*cell,h=w*r.height/r.width,x=home[0]+home[2],y=home[1];
 var acting=q('g.board.acting rect.frame',svg);
 if(acting.length){x=-1e9;y=1e9;acting.forEach(function(f){x=Math.max(x,+f.getAttribute('x')+ +f.getAttribute('width'));y=Math.min(y,+f.getAttribute('y'));});}
 setVB([Math.max(home[0],Math.min(home[0]+home[2],x+cell)-w),Math.max(home[1],y-cell*0.3),w,h]);}
svg.setAttribute('data-ready','1');
return {state:function(){return {vb:vb.slice(),step:step,atLast:step===last,hidden:hidden,all:all.checked};},
 go:go};
}
window.fivedpView=start;
start(null);
})();"""
